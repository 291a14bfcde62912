import Foundation
import Glibc
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Activation windows and critical releases through the library: the updater's clock is
/// set to local times on either side of a window's edges and of midnight, against nginx.
@Suite struct ActivationWindowTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = try temp.makeDirectory("origin")
        store = PackageStore(root: temp.path + "/store")
    }

    /// The instant this machine's local clock reads `hour:minute:second` on 27 Nov 2026.
    static func local(_ hour: Int32, _ minute: Int32, _ second: Int32 = 0, day: Int32 = 27) -> Date {
        var parts = tm()
        parts.tm_year = 2026 - 1900
        parts.tm_mon = 10
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        parts.tm_isdst = -1
        return Date(timeIntervalSince1970: TimeInterval(mktime(&parts)))
    }

    func updater(_ origin: NginxOrigin, windows: [String], at date: Date) -> Updater {
        Updater(store: store, manifestURL: origin.baseURL + "/manifest.json", keep: 5, clock: { date },
                activationWindows: windows.compactMap(ActivationWindow.init))
    }

    func publish(_ version: String, from source: String, critical: Bool = false) throws {
        try PublishingFolder(originRoot).pack(source: BundleFixtures.demoSource(source), name: "demo",
                                                          version: version, options: .init(routes: ["www.example.com/app"],
                                                          deltaFrom: 0, critical: critical))
    }

    @Test(arguments: [
        ("02:00-04:00", [(1, 59, false), (2, 0, true), (3, 59, true), (4, 0, false)]),
        ("22:30-01:15", [(22, 29, false), (22, 30, true), (23, 59, true), (0, 0, true), (1, 14, true), (1, 15, false)]),
        ("00:00-24:00", [(0, 0, true), (12, 0, true), (23, 59, true)]),
        ("23:00-24:00", [(22, 59, false), (23, 0, true), (23, 59, true), (0, 0, false)]),
    ])
    func aWindowHoldsItsStartNotItsEndAndMayCrossMidnight(_ text: String, _ cases: [(Int, Int, Bool)]) throws {
        let window = try #require(ActivationWindow(text))
        #expect(window.description == text)
        for (hour, minute, inside) in cases {
            #expect(window.contains(minuteOfDay: hour * 60 + minute) == inside, "\(text) at \(hour):\(minute)")
            #expect(ActivationWindow.anyContains([window], Self.local(Int32(hour), Int32(minute), 30)) == inside,
                    "\(text) at local \(hour):\(minute):30")
        }
    }

    @Test(arguments: ["", "2:00-04:00", "02:00", "02:00-02:00", "25:00-01:00", "02:60-03:00", "02:00-24:01",
                      "24:00-01:00", "02:00-04:00-05:00", "０２:00-04:00", "02:00 -04:00"])
    func malformedWindowsAreRefused(_ text: String) {
        #expect(ActivationWindow(text) == nil, "\(text)")
    }

    @Test func aNewVersionWaitsInstalledForTheWindowAndActivatesThereWithoutADownload() throws {
        try publish("1.0.0", from: "1.0.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        #expect(try updater(origin, windows: ["02:00-04:00"], at: Self.local(1, 0)).run().packages.map(\.action) == [.installed],
                "a first install is not held back: nothing else would serve")
        try publish("1.1.0", from: "1.1.0")

        let outside = try updater(origin, windows: ["02:00-04:00"], at: Self.local(1, 59, 59)).run()
        #expect(outside.packages.map(\.action) == [.pending] && outside.succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.pendingVersion(of: "demo") == "1.1.0")
        #expect(try store.record(of: "demo", version: "1.1.0") != nil, "downloaded, verified and installed")
        #expect(try store.verify("demo").allSatisfy(\.isIntact))
        #expect(try store.collectGarbage(keep: 1).isEmpty, "gc keeps the version that waits")

        let before = origin.settledAccessLog().count
        let inside = try updater(origin, windows: ["02:00-04:00"], at: Self.local(2, 0)).run()
        #expect(inside.packages.map(\.action) == [.upgraded], "\(inside.packages)")
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.pendingVersion(of: "demo") == nil)
        let fetched = origin.settledAccessLog().dropFirst(before).map { String($0.split(separator: " ")[0]) }
        #expect(fetched == ["/manifest.json"], "the manifest in full (no validators kept while a version waited), no zip: \(fetched)")
    }

    @Test func aCriticalReleaseActivatesAtOnceAndAWindowAcrossMidnightOpensAfterIt() throws {
        let windows = ["23:30-00:30"]
        try publish("1.0.0", from: "1.0.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        #expect(try updater(origin, windows: windows, at: Self.local(12, 0)).run().succeeded)
        try publish("1.1.0", from: "1.1.0", critical: true)
        #expect(try updater(origin, windows: windows, at: Self.local(12, 0)).run().packages.map(\.action) == [.upgraded],
                "a critical release does not wait")
        #expect(store.activeVersion(of: "demo") == "1.1.0")

        try publish("1.2.0", from: "1.0.0")
        #expect(try updater(origin, windows: windows, at: Self.local(23, 29)).run().packages.map(\.action) == [.pending])
        // Revoked while it waited: no longer wanted, nothing waits.
        try PublishingFolder(originRoot).revoke(name: "demo", version: "1.2.0")
        _ = try updater(origin, windows: windows, at: Self.local(23, 29)).run()
        #expect(try store.pendingVersion(of: "demo") == nil)
        #expect(store.activeVersion(of: "demo") == "1.1.0")

        try publish("1.3.0", from: "1.0.0")
        #expect(try updater(origin, windows: windows, at: Self.local(23, 29)).run().packages.map(\.action) == [.pending])
        #expect(try store.pendingVersion(of: "demo") == "1.3.0")
        let next = try updater(origin, windows: windows, at: Self.local(0, 10, day: 28)).run()
        #expect(next.packages.map(\.action) == [.upgraded], "10 past midnight is inside 23:30-00:30")
        #expect(store.activeVersion(of: "demo") == "1.3.0")

        // A revoked active version is left at once, window or not (a halted release must stop).
        try PublishingFolder(originRoot).revoke(name: "demo", version: "1.3.0")
        let left = try updater(origin, windows: windows, at: Self.local(12, 0)).run()
        #expect(left.packages.map(\.action) == [.revoked], "\(left.packages)")
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }
}
