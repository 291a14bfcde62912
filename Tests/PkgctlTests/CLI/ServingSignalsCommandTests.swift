import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What the resolver sees go wrong under a release's routes reaches the publisher: the
/// resolver counts the origin's 404s and fallbacks per version in the store, `pkgctl update`
/// reports their totals when they grew, `fleet report` sums them up and `fleet watch
/// --max-404-rate` halts a release with a broken link its health check passed. Real nginx
/// (origin and log), real pkgctl processes, the real resolver (`pkgctl resolve --fetch`).
@Suite struct ServingSignalsCommandTests {
    let site: PublishingOrigin

    init() throws {
        site = try PublishingOrigin()
    }

    private func pack(_ version: String, _ extra: [String] = [], from source: String? = nil) throws {
        try BundleFixtures.packDemo(version, into: site.out, from: source, extra)
    }

    private func update(_ store: String, deviceID: String = "device-1", _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--device-id", deviceID] + extra)
    }

    /// The app asks the resolver for `path` under the package's route; what the package lacks goes to nginx.
    private func fetch(_ store: String, _ path: String) throws -> String {
        let result = try PkgctlProcess.run(["resolve", "--root", store, "app://www.example.com/app/" + path,
                                            "--upstream", site.origin.baseURL, "--fetch"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(separator: "\n").first { $0.hasPrefix("status:") }.map(String.init) ?? result.stdout
    }

    private func servingReports() -> [OutcomeReport] { site.origin.outcomeReports().filter { $0.outcome == .serving } }

    @Test func originMissesUnderARouteAreCountedAndReportedOnceTheyGrow() throws {
        try pack("1.0.0")
        // A file the release lacks that the origin has (a fallback), and one nobody has (a 404 inside the app).
        try FileManager.default.createDirectory(atPath: site.out + "/app", withIntermediateDirectories: true)
        try Data("late\n".utf8).write(to: URL(fileURLWithPath: site.out + "/app/late.js"))
        let store = site.temp.path("store")
        #expect(try update(store).status == 0)
        #expect(try fetch(store, "index.html") == "status:   200", "a file of the package: nothing counted")
        #expect(try fetch(store, "late.js") == "status:   200")
        #expect(try fetch(store, "missing.js") == "status:   404")
        #expect(try fetch(store, "gone/missing.css") == "status:   404")
        let layout = PackageStore(root: store).layout
        let totals = ServingSignals.all(layout)
        #expect(totals.map { "\($0.name) \($0.version) \($0.signals.notFound) \($0.signals.originFallbacks)" } == ["demo 1.0.0 2 3"])

        // The next poll (304, nothing to install) reports the totals; one after it, with nothing new, does not.
        #expect(try update(store).status == 0)
        #expect(try update(store).status == 0)
        let device = DevicePseudonym.make(deviceID: "device-1", package: "demo", release: "1.0.0")
        #expect(servingReports() == [OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: .serving,
                                                   notFound: 2, originFallbacks: 3, device: device, client: "0.1.0")])
        #expect(try fetch(store, "missing.js") == "status:   404")
        #expect(try update(store).status == 0)
        #expect(servingReports().map { [$0.notFound, $0.originFallbacks] } == [[2, 3], [3, 4]], "totals, not increments")
        #expect(site.origin.accessLog().filter { $0.contains("/report/") }.allSatisfy { !$0.contains("missing") },
                "a report names no path the app asked for")

        let log = try #require(site.origin.combinedAccessLogPath)
        let report = try PkgctlProcess.run(["fleet", "report", log])
        #expect(report.stdout.contains("demo 1.0.0: 1 devices, 1 installed, 0 rolled back, 0 failed; failure rate 0.0 % of 1 "
                                       + "that tried it (95 % interval 0.0 % to 79.3 %); 404s inside the app: 3 on 1 of 1 devices "
                                       + "(100.0 %, 95 % interval 20.7 % to 100.0 %), 4 origin fallbacks"), "\(report.stdout)")

        // gc removes a version's signals with the version.
        try pack("2.0.0", from: "1.1.0")
        try pack("3.0.0", from: "1.0.0")
        #expect(try update(store, ["--keep", "1"]).status == 0)
        #expect(ServingSignals.all(layout).isEmpty)
        #expect(!FileSystem.exists(ServingSignals.file(layout, name: "demo", version: "1.0.0")))
    }

    @Test func aLongRunningResolverWritesItsCountsWithinASecondAndProcessesAddUp() throws {
        try pack("1.0.0")
        let store = site.temp.path("store")
        #expect(try update(store).status == 0)
        let packageStore = PackageStore(root: store)
        let resolver = try Resolver(store: packageStore, configuration: ResolverConfiguration(upstream: site.origin.baseURL))
        defer { resolver.shutdown() }
        let task = RecordingTask("app://www.example.com/app/nowhere.js")
        resolver.start(task)
        #expect(task.wait(seconds: 30))
        #expect(task.response?.status == 404)
        // Still running: the count reaches the store by itself.
        let written = eventually(seconds: 10) {
            ServingSignals.all(packageStore.layout).first?.signals == ServingSignals(notFound: 1, originFallbacks: 1)
        }
        #expect(written)
        // An API call under the route (a fetch of JSON, a POST) that the origin 404s says nothing
        // about the package: not counted.
        for (method, accept) in [("GET", "application/json"), ("POST", "*/*")] {
            let call = RecordingTask("app://www.example.com/app/api/items/42", accept: accept, method: method)
            resolver.start(call)
            #expect(call.wait(seconds: 30))
            #expect(call.response?.status == 404 || call.response?.status == 405, "\(method)")
        }
        resolver.flushSignals()
        #expect(ServingSignals.all(packageStore.layout).first?.signals == ServingSignals(notFound: 1, originFallbacks: 1))
        // Another process's counts add to this one's.
        #expect(try fetch(store, "nowhere.js") == "status:   404")
        #expect(ServingSignals.all(packageStore.layout).first?.signals == ServingSignals(notFound: 2, originFallbacks: 2))
    }

    @Test func aReleaseWithABrokenLinkIsHaltedByThe404RateAlone() throws {
        try pack("1.0.0")
        let stores = (0..<4).map { site.temp.path("device\($0)") }
        for (index, store) in stores.enumerated() { #expect(try update(store, deviceID: "d\(index)").status == 0) }
        try pack("1.1.0")
        // The health check passes, but the app meets a broken link on three devices.
        for (index, store) in stores.enumerated() {
            #expect(try update(store, deviceID: "d\(index)", ["--health-check", "true"]).status == 0)
            if index < 3 { #expect(try fetch(store, "broken-link.js") == "status:   404") }
            #expect(try update(store, deviceID: "d\(index)").status == 0)
        }
        _ = site.origin.settledAccessLog()
        let log = try #require(site.origin.combinedAccessLogPath)
        let options = ["--interval", "0", "--max-failure-rate", "20", "--min-devices", "4"]
        #expect(try PkgctlProcess.run(["fleet", "watch", site.out, "demo", "--log", log, "--dry-run"] + options).stdout
                == "demo 1.1.0 at 100 %: done: 0 of 4 devices failed (0.0 %, 95 % interval 0.0 % to 49.0 %)\n",
                "without --max-404-rate, 404s decide nothing")
        let halted = try PkgctlProcess.run(["fleet", "watch", site.out, "demo", "--log", log, "--max-404-rate", "10"] + options)
        #expect(halted.stdout == "demo 1.1.0 at 100 %: halt: 3 of 4 devices met a 404 inside the app (75.0 %, 95 % interval "
                + "30.1 % to 95.4 %), above 10.0 %; revoked, devices go back to the version they ran before\n", "\(halted.stderr)")
        for (index, store) in stores.enumerated() {
            #expect(try update(store, deviceID: "d\(index)").status == 0)
            #expect(PackageStore(root: store).activeVersion(of: "demo") == "1.0.0", "device \(index)")
        }
    }

    @Test func newerTotalsReplaceTheWaitingOnesOfTheirReleaseAndLeaveOtherReportsAlone() throws {
        let spool = ReportSpool(layout: PackageStore(root: site.temp.path("store")).layout)
        func serving(_ release: String, _ count: Int) -> OutcomeReport {
            OutcomeReport(package: "demo", release: release, from: nil, outcome: .serving, notFound: count,
                          originFallbacks: count, device: "d", client: "0.1.0")
        }
        let failed = OutcomeReport(package: "demo", release: "1.1.0", from: "1.0.0", outcome: .failed,
                                   errorCode: "checksumMismatch", device: "d", client: "0.1.0")
        try spool.add([failed, serving("1.0.0", 1)])
        try spool.add([serving("1.0.0", 2), serving("1.1.0", 1)])
        try spool.add([serving("1.0.0", 2)])
        let waiting = try spool.pending().compactMap { OutcomeReport(query: Substring($0.query)) }
        #expect(waiting == [failed, serving("1.0.0", 2), serving("1.1.0", 1)], "\(waiting.map(\.query))")
        try spool.forgetSignals { _, release in release == "1.0.0" }
        try spool.add([serving("1.0.0", 2)])
        #expect(try spool.pending().count == 3, "a forgotten slot reports the same totals again, once")
    }

    @Test func reportQueriesWithCountsReadBackAndBadCountsAreRefused() {
        let report = OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: .serving, notFound: 7,
                                   originFallbacks: 12, device: "d", client: "0.1.0")
        #expect(report.query == "p=demo&r=1.0.0&a=serving&n=7&o=12&d=d&v=0.1.0")
        #expect(OutcomeReport(query: Substring(report.query)) == report)
        for bad in ["n=-1", "n=1e3", "o=", "n=9999999999999999999", "n=1&n=2"] {
            #expect(OutcomeReport(query: Substring("p=demo&r=1.0.0&a=serving&d=d&v=1&" + bad)) == nil, "\(bad)")
        }
    }
}
