import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// When and to whom a release goes, through the command line against nginx: activation
/// windows under Debian's faketime (the clock of the pkgctl process, local time UTC), critical
/// releases, and devices pinned to a release by `rollout --devices`, signed.
@Suite struct TargetingCommandTests {
    let site: PublishingOrigin

    init() throws {
        site = try PublishingOrigin()
    }

    private func pack(_ version: String, from source: String? = nil, _ extra: [String] = []) throws {
        try BundleFixtures.packDemo(version, into: site.out, from: source, extra)
    }

    /// `pkgctl update` run with its clock at `time` (UTC, 27 Nov 2026), keeping the window 02:00-04:00:
    /// the uninstrumented build, as an instrumented one deadlocks under libfaketime (ReleaseCommandTests
    /// says why); ActivationWindowTests covers the edges through the library's clock.
    private func update(_ store: String, at time: String, _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--activate-window", "02:00-04:00"] + extra,
                              environment: ["TZ": "UTC"], launcher: ["/usr/bin/faketime", "-f", "@2026-11-27 \(time)"],
                              executable: try #require(UninstrumentedBuild.pkgctl))
    }

    @Test(.enabled(if: UninstrumentedBuild.pkgctl != nil, UninstrumentedBuild.absence))
    func aVersionWaitsOutsideTheWindowAndActivatesInsideItUnlessCritical() throws {
        let store = site.temp.path("store")
        try pack("1.0.0")
        #expect(try update(store, at: "01:00:00").stdout == "demo: installed 1.0.0\n")
        try pack("1.1.0")
        let waiting = try update(store, at: "01:59:59")
        #expect(waiting.status == 0, "\(waiting.stderr)")
        #expect(waiting.stdout == "demo: 1.1.0 is installed and waits for an activation window; 1.0.0 stays active\n")
        let status = try PkgctlProcess.run(["status", "--root", store])
        #expect(status.stdout.contains("demo 1.0.0  ") && status.stdout.contains("  pending: 1.1.0 (installed; activates "
                                                                                   + "inside an activation window)"), "\(status.stdout)")
        let json = try PkgctlProcess.run(["status", "--root", store, "--json"])
        struct Listing: Decodable { struct Package: Decodable { let version: String; let pending: String? }; let packages: [Package] }
        let listing = try JSONDecoder().decode(Listing.self, from: Data(json.stdout.utf8))
        #expect(listing.packages.map { "\($0.version) \($0.pending ?? "-")" } == ["1.0.0 1.1.0"], "\(json.stdout)")

        let before = site.origin.settledAccessLog().count
        let opened = try update(store, at: "02:00:00")
        #expect(opened.stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n", "\(opened.stdout)\(opened.stderr)")
        let fetched = site.origin.settledAccessLog().dropFirst(before).map { String($0.split(separator: " ")[0]) }
        #expect(!fetched.contains { $0.hasSuffix(".zip") }, "activated without a download: \(fetched)")
        #expect(!(try PkgctlProcess.run(["status", "--root", store]).stdout.contains("pending")))

        // Across midnight, from the config file; and a critical release does not wait.
        let config = try site.temp.write(Array(#"{"update": {"activate-window": ["23:30-00:30"]}}"#.utf8), to: "config.json")
        try pack("1.2.0", from: "1.0.0")
        let late = try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--config", config],
                                         environment: ["TZ": "UTC"], launcher: ["/usr/bin/faketime", "-f", "@2026-11-28 00:29:00"],
                                         executable: try #require(UninstrumentedBuild.pkgctl))
        #expect(late.stdout.hasPrefix("demo: 1.1.0 -> 1.2.0 (upgraded)\n"), "\(late.stdout)\(late.stderr)")
        try pack("1.3.0", from: "1.1.0", ["--critical"])
        let critical = try update(store, at: "12:00:00")
        #expect(critical.stdout.hasPrefix("demo: 1.2.0 -> 1.3.0 (upgraded)\n"), "\(critical.stdout)\(critical.stderr)")
    }

    @Test func badWindowsAreRefusedByName() throws {
        let refused = try PkgctlProcess.run(["update", "--root", site.temp.path("s"), "--manifest", site.manifestURL,
                                             "--activate-window", "2-4"])
        #expect(refused.status == 64)
        #expect(refused.stderr == "pkgctl: --activate-window must be HH:MM-HH:MM, local time, opening and closing at "
                + "different minutes (got '2-4')\n")
        let config = try site.temp.write(Array(#"{"update": {"activate-window": ["02:00-02:00"]}}"#.utf8), to: "config.json")
        let fromFile = try PkgctlProcess.run(["update", "--root", site.temp.path("s"), "--manifest", site.manifestURL, "--config", config])
        #expect(fromFile.status == 78 && fromFile.stderr.contains("update.activate-window must be HH:MM-HH:MM"), "\(fromFile.stderr)")
    }

    @Test func pinnedDevicesGetTheReleaseWhateverThePercentageAndTheManifestHidesTheirIDs() throws {
        let key = try PkgctlProcess.run(["keygen", "--out", site.temp.path, "--name", "release"])
        #expect(key.status == 0, "\(key.stderr)")
        let sign = ["--sign", site.temp.path + "/release.key"], trust = ["--trusted-key", site.temp.path + "/release.pub"]
        try pack("1.0.0", sign)
        let stores = (0..<3).map { site.temp.path("device\($0)") }
        for store in stores {
            #expect(try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL] + trust).status == 0)
        }
        // The testers send the ids their devices print.
        let ids = try stores.map { try PkgctlProcess.run(["update", "--root", $0, "--print-device-id"]).stdout }
        #expect(ids.allSatisfy { $0.hasSuffix("\n") && UUID(uuidString: String($0.dropLast())) != nil }, "\(ids)")
        #expect(try PkgctlProcess.run(["update", "--root", stores[0], "--print-device-id"]).stdout == ids[0], "stable")
        #expect(try PkgctlProcess.run(["update", "--print-device-id", "--device-id", "kiosk-7"]).stdout == "kiosk-7\n")

        try pack("1.1.0", ["--rollout", "0"] + sign)
        let list = try site.temp.write(Array("# QA phones\n\(ids[0])  \n\n\(ids[1])".utf8), to: "qa.txt")
        let pinned = try PkgctlProcess.run(["rollout", site.out, "demo", "--devices", list] + sign)
        #expect(pinned.stdout == "demo 1.1.0: 0 % of devices, and 2 pinned devices\n", "\(pinned.stderr)")
        let manifest = String(decoding: try #require(try FileSystem.read(site.out + "/manifest.json")), as: UTF8.self)
        for id in ids { #expect(!manifest.contains(String(id.dropLast())), "the id itself is not published") }
        let payload = try TrustPolicy(trustedKeys: [TrustedKey(file: site.temp.path + "/release.pub")])
            .open(Array(manifest.utf8), source: "manifest.json", now: Date())
        #expect(payload.manifest.packages.first?.rollout?.devices?.count == 2, "the pins are signed")

        for (index, store) in stores.enumerated() {
            _ = try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL] + trust)
            #expect(PackageStore(root: store).activeVersion(of: "demo") == (index < 2 ? "1.1.0" : "1.0.0"), "device \(index)")
        }
        // Raising the percentage keeps the pins; an empty list removes them.
        #expect(try PkgctlProcess.run(["rollout", site.out, "demo", "0.01"] + sign).stdout == "demo 1.1.0: 0.01 % of devices, and 2 pinned devices\n")
        let empty = try site.temp.write([], to: "none.txt")
        #expect(try PkgctlProcess.run(["rollout", site.out, "demo", "--devices", empty] + sign).stdout == "demo 1.1.0: 0.01 % of devices\n")
        // Pins need a release still rolling out; a bad line is named.
        let bad = try site.temp.write(Array("ok\nhas space\n".utf8), to: "bad.txt")
        let refusedLine = try PkgctlProcess.run(["rollout", site.out, "demo", "--devices", bad] + sign)
        #expect(refusedLine.status == 1 && refusedLine.stderr == "pkgctl: \(bad) line 2: a device id is 1 to 256 printable "
                + "characters without spaces\n", "\(refusedLine.stderr)")
        #expect(try PkgctlProcess.run(["rollout", site.out, "demo", "100"] + sign).status == 0)
        let atFull = try PkgctlProcess.run(["rollout", site.out, "demo", "--devices", list] + sign)
        #expect(atFull.status == 1 && atFull.stderr.contains("goes to every device; pins need a release still rolling out"),
                "\(atFull.stderr)")
        // Neither a percent nor pins: it shows where the rollout stands (RolloutShowCommandTests).
        let neither = try PkgctlProcess.run(["rollout", site.out, "demo"])
        #expect(neither.status == 0 && neither.stdout == "demo 1.1.0: every device\n", "\(neither.stderr)")
    }

    /// 1.1.0 published, then 2.0.0 rolling out to 10 % (devices outside get 1.1.0): returns a device
    /// id the rollout leaves out and one it includes.
    private func rollOutToTenPercent() throws -> (outside: String, inside: String) {
        try pack("1.1.0")
        try pack("2.0.0", from: "1.1.0", ["--rollout", "10"])
        let manifest = try #require(try PublishedManifest.read(site.out + "/manifest.json")?.manifest)
        let rollout = try #require(manifest.packages.first { $0.version == "2.0.0" }?.rollout)
        let ids = (0..<500).map { "device-\($0)" }
        try backdate(site.out + "/manifest.json")  // a strong validator: a 304 next time
        return (try #require(ids.first { !rollout.includes(deviceID: $0) }), try #require(ids.first { rollout.includes(deviceID: $0) }))
    }

    /// A device a staged rollout leaves out is told so, in the line and the JSON, on the run that
    /// installs the version named before, on a run where nothing changes, and on a 304 (issue 35, 7).
    @Test func aDeviceLeftOutOfARolloutIsToldWhatIsRollingOut() throws {
        let (outside, inside) = try rollOutToTenPercent()
        let store = site.temp.path("store")
        func update(_ extra: [String] = []) throws -> PkgctlProcess.Result {
            try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--device-id", outside] + extra)
        }
        let note = "2.0.0 is rolling out to 10 % of devices; this device is not in it yet"
        let first = try update()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "demo: installed 1.1.0 (\(note))\n")
        #expect(try update().stdout == "manifest not modified; nothing to do\ndemo: 1.1.0 is up to date (\(note))\n")
        // The manifest read again (a new ETag), and nothing to do.
        try backdate(site.out + "/manifest.json", seconds: 20)
        #expect(try update().stdout == "demo: 1.1.0 is up to date (\(note))\n")
        try backdate(site.out + "/manifest.json", seconds: 30)
        let unchanged = try update(["--json"])
        #expect(unchanged.status == 0, "\(unchanged.stderr)")
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(unchanged.stdout.utf8))
        #expect(report.manifest == .fetched)
        #expect(report.packages.map(\.action) == [.unchanged], "the actions keep their meaning")
        let object = try JSONSerialization.jsonObject(with: Data(unchanged.stdout.utf8)) as? [String: Any]
        let package = (object?["packages"] as? [[String: Any]])?.first
        #expect((package?["rollingOut"] as? [String: Any]).map { "\($0["version"] ?? "-") \($0["percent"] ?? "-")" } == "2.0.0 10",
                "\(unchanged.stdout)")
        // A device in the rollout hears nothing of it.
        let included = try PkgctlProcess.run(["update", "--root", site.temp.path("inside"), "--manifest", site.manifestURL,
                                              "--device-id", inside])
        #expect(included.stdout == "demo: installed 2.0.0\n", "\(included.stderr)")
    }

    /// The validators kept for the conditional GET belong to the device id, as to the runtime:
    /// the same store updated under another id reads the manifest in full, and its rollout is
    /// decided for that id (issue 35, 8).
    @Test func anotherDeviceIDReadsTheManifestAgain() throws {
        let (outside, inside) = try rollOutToTenPercent()
        let store = site.temp.path("store")
        func update(as device: String) throws -> PkgctlProcess.Result {
            try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--device-id", device])
        }
        #expect(try update(as: outside).stdout.hasPrefix("demo: installed 1.1.0 ("))
        let moved = try update(as: inside)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "demo: 1.1.0 -> 2.0.0 (upgraded)\n")
        let statuses = site.origin.settledAccessLog().filter { $0.hasPrefix("/manifest.json ") }.map { $0.split(separator: " ")[1] }
        #expect(statuses == ["200", "200"], "\(site.origin.settledAccessLog())")
        #expect(try update(as: inside).stdout == "manifest not modified; nothing to do\n")
    }
}
