import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Device outcomes reach the publisher through the origin's own access log: `pkgctl update`
/// reports each outcome with a GET to nginx (which answers it 404), `pkgctl fleet report`
/// sums the log up. Real nginx, real pkgctl processes.
@Suite struct OutcomeReportCommandTests {
    let site: PublishingOrigin

    init() throws {
        site = try PublishingOrigin()
    }

    private func update(_ store: String, _ extra: [String] = [], deviceID: String = "device-1",
                        environment: [String: String] = [:]) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--device-id", deviceID] + extra,
                              environment: environment)
    }

    private func reports() -> [OutcomeReport] { site.origin.outcomeReports() }

    @Test func eachOutcomeIsReportedOnceWithAPseudonymNotTheDeviceID() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        let store = site.temp.path("store")
        #expect(try update(store).status == 0)
        #expect(try update(store).status == 0, "an unchanged run reports nothing")
        try BundleFixtures.publishDemo(["1.1.0"], into: site.out)
        let failing = try update(store, ["--health-check", "exit 3"])
        #expect(failing.status == 1)
        #expect(try update(store, ["--health-check", "exit 3"]).status == 0, "held: reported once")

        // Each install and failure says what its run fetched (UpdateTransferTests checks how much).
        let sent = reports().map { report in
            var report = report
            #expect((report.bytes ?? 0 > 0) == (report.outcome != .held), "\(report)")
            report.bytes = nil
            return report
        }
        let deviceOne = DevicePseudonym.make(deviceID: "device-1", package: "demo", release: "1.0.0")
        let deviceTwo = DevicePseudonym.make(deviceID: "device-1", package: "demo", release: "1.1.0")
        #expect(sent == [
            OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: .installed, device: deviceOne, client: "0.1.0"),
            OutcomeReport(package: "demo", release: "1.1.0", from: "1.0.0", outcome: .rolledBack, cause: "exit",
                          device: deviceTwo, client: "0.1.0"),
            OutcomeReport(package: "demo", release: "1.1.0", from: "1.0.0", outcome: .held, device: deviceTwo, client: "0.1.0"),
        ])
        #expect(deviceOne != deviceTwo, "a device is not followed from one release to the next")
        #expect(!site.origin.accessLog().joined().contains("device-1"), "the device id never leaves the device")
        #expect(try FileSystem.contents(of: PackageStore(root: store).layout.reports).filter { $0.hasSuffix(".report") }.isEmpty)
    }

    @Test func aFailedInstallIsReportedWithItsErrorCode() throws {
        let entry = try #require(try BundleFixtures.publishDemo(["1.0.0"], into: site.out).first)
        // The zip no longer matches the manifest's digest.
        let zip = site.out + "/" + entry.url
        var bytes = try Data(contentsOf: URL(fileURLWithPath: zip))
        bytes[bytes.count / 2] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: zip))
        #expect(try update(site.temp.path("store")).status == 1)
        #expect(reports().map { [$0.outcome.rawValue, $0.errorCode ?? ""] } == [["failed", "checksumMismatch"]])
    }

    @Test func reportsNeverHoldUpAnUpdateAndWaitForAReachableOrigin() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        let store = site.temp.path("store")
        let hanging = try UnansweredListener()
        let started = Date()
        let result = try update(store, ["--report-url", "http://127.0.0.1:\(hanging.port)/report/v1"])
        #expect(result.status == 0 && result.stdout == "demo: installed 1.0.0\n", "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 15, "the report's budget is 5 s")
        let spooled = try FileSystem.contents(of: PackageStore(root: store).layout.reports).filter { $0.hasSuffix(".report") }
        #expect(spooled.count == 1)
        #expect(reports().isEmpty)

        // The next run (nothing new to install) delivers what waited, to the origin beside the manifest.
        #expect(try update(store).status == 0)
        #expect(reports().map(\.outcome) == [.installed])
        #expect(try FileSystem.contents(of: PackageStore(root: store).layout.reports).filter { $0.hasSuffix(".report") }.isEmpty)
    }

    @Test func aDeviceKilledWhileReportingSendsTheReportOnceLater() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        let store = site.temp.path("store")
        let hanging = try UnansweredListener()
        let (process, _, _) = try PkgctlProcess.start(["update", "--root", store, "--manifest", site.manifestURL, "--device-id", "d",
                                                       "--report-url", "http://127.0.0.1:\(hanging.port)/report/v1"])
        defer { ProcessLaunch.stop(process) }
        // The report is spooled before it is sent; kill the run while it waits to connect. (A name
        // with the temporary prefix is a report still being written: a kill then leaves none.)
        let reports = PackageStore(root: store).layout.reports
        let spooled = eventually(seconds: 30) {
            ((try? FileSystem.contents(of: reports)) ?? []).contains {
                $0.hasSuffix(".report") && !$0.hasPrefix(FileSystem.temporaryPrefix)
            }
        }
        #expect(spooled)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(PackageStore(root: store).activeVersion(of: "demo") == "1.0.0", "the update itself was done")
        let left = try FileSystem.contents(of: reports)
        #expect(left.filter { $0.hasSuffix(".report") }.count == 1, "\(left)")

        #expect(try update(store, deviceID: "d").status == 0)
        #expect(try update(store, deviceID: "d").status == 0)
        #expect(self.reports().map(\.outcome) == [.installed], "delivered once, by the next run")
    }

    /// A run killed while it wrote a report leaves the report's temporary file (named like a
    /// report, with the temporary prefix, here empty): the next run neither sends it (an empty
    /// query in the origin's log) nor leaves it, and sends its own report.
    @Test func aReportAKilledRunWasStillWritingIsNeitherSentNorLeft() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        let store = site.temp.path("store")
        let spool = PackageStore(root: store).layout.reports
        try FileSystem.makeDirectories(spool)
        try FileSystem.writeAtomically([], to: spool + "/" + FileSystem.temporaryPrefix + "4242-00000000000000000001.report")
        #expect(try update(store).status == 0)
        #expect(reports().map(\.outcome) == [.installed])
        let sent = site.origin.settledAccessLog().filter { $0.hasPrefix("/report/v1") }
        #expect(sent.count == 1, "\(sent)")
        #expect(try FileSystem.contents(of: spool).filter { $0.hasSuffix(".report") }.isEmpty)
    }

    @Test func theSpoolKeepsTheNewestReportsUpToItsBound() throws {
        let store = PackageStore(root: site.temp.path("store"))
        let spool = ReportSpool(layout: store.layout)
        let reports = (0..<(ReportSpool.limit + 40)).map {
            OutcomeReport(package: "p\($0)", release: "1.0.0", from: nil, outcome: .installed, device: "d", client: "0.1.0")
        }
        try spool.add(reports)
        let waiting = try spool.pending().compactMap { OutcomeReport(query: Substring($0.query)) }
        #expect(waiting.count == ReportSpool.limit)
        #expect(waiting.first?.package == "p40" && waiting.last?.package == "p\(ReportSpool.limit + 39)")
    }

    @Test func reportsAreOffWithNoReportOrTheConfigFile() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        #expect(try update(site.temp.path("store1"), ["--no-report"]).status == 0)
        let config = try site.temp.write(Array(#"{"update": {"report": false}}"#.utf8), to: "config.json")
        #expect(try update(site.temp.path("store2"), ["--config", config]).status == 0)
        #expect(try update(site.temp.path("store3"), environment: ["PKGCTL_UPDATE_REPORT": "false"]).status == 0)
        #expect(reports().isEmpty)
        for store in ["store1", "store2", "store3"] {
            #expect(!FileSystem.exists(PackageStore(root: site.temp.path(store)).layout.reports))
        }
        let refused = try update(site.temp.path("store4"), ["--report-url", "ftp://example.com/r"])
        #expect(refused.status == 64)
        #expect(refused.stderr == "pkgctl: --report-url 'ftp://example.com/r' is not an http(s) URL\n")
        let query = try update(site.temp.path("store4"), ["--report-url", "http://example.com/r?x=1"])
        #expect(query.status == 64)
        #expect(query.stderr == "pkgctl: --report-url 'http://example.com/r?x=1' has a query; it must have none\n")
    }

    @Test func fleetReportReadsEveryLineOfALogLargerThanItsReads() throws {
        // 3 MB of reports: lines cut by the reader's 1 MiB reads are joined whole.
        var text = ""
        for index in 0..<20_000 {
            let report = OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: index % 100 == 0 ? .failed : .installed,
                                       errorCode: index % 100 == 0 ? "checksumMismatch" : nil,
                                       device: String(format: "d%015d", index),
                                       client: "0.1.0")
            text += #"10.0.0.1 - - [25/Nov/2026:17:00:00 +0000] "GET /app/report/v1?\#(report.query) HTTP/1.1" 404 153 "-" "-"\#n"#
        }
        let log = try site.temp.write(Array(text.utf8), to: "large.log")
        let result = try PkgctlProcess.run(["fleet", "report", log])
        #expect(result.stdout == "channel /app:\ndemo 1.0.0: 20000 devices, 19800 installed, 0 rolled back, 200 failed (checksumMismatch 200); "
                + "failure rate 1.0 % of 20000 that tried it (95 % interval 0.9 % to 1.1 %); 19800 on it now\n"
                + "demo: 19800 devices on its releases now, each where its last report put it; 0 on older releases sent no "
                + "report about 1.0.0, the newest\n20000 reports, 0 unreadable report lines\n", "\(result.stdout)\(result.stderr)")
    }

    @Test func fleetReportSumsUpTheOriginsLog() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: site.out)
        for device in 0..<4 { #expect(try update(site.temp.path("store\(device)"), deviceID: "device-\(device)").status == 0) }
        try BundleFixtures.publishDemo(["1.1.0"], into: site.out)
        for device in 0..<4 {
            let check = device == 0 ? "exit 1" : "true"
            _ = try update(site.temp.path("store\(device)"), ["--health-check", check], deviceID: "device-\(device)")
        }
        _ = site.origin.settledAccessLog()
        let log = try #require(site.origin.combinedAccessLogPath)
        // Hostile lines among the real ones: a forged outcome, binary bytes, an endless line.
        let hostile = site.temp.path("hostile.log")
        var junk = Data(#"127.0.0.1 - - [25/Nov/2026:17:00:00 +0000] "GET /report/v1?p=demo&r=1.1.0&a=exploded&d=x&v=1 HTTP/1.1" 404 0 "-" "-""#.utf8)
        junk += Data("\n".utf8) + Data([0x47, 0x45, 0x54, 0x20] + Array("/report/v1?p=\u{1}".utf8) + [0xff, 0x00, 0x0a])
        junk += Data("GET /report/v1?".utf8) + Data(repeating: UInt8(ascii: "a"), count: 100_000) + Data("\n".utf8)
        try junk.write(to: URL(fileURLWithPath: hostile))

        let text = try PkgctlProcess.run(["fleet", "report", log, hostile])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("demo 1.0.0: 4 devices, 4 installed, 0 rolled back, 0 failed; failure rate 0.0 % of 4 that tried it"), "\(text.stdout)")
        #expect(text.stdout.contains("demo 1.1.0: 4 devices, 3 installed, 1 rolled back (exit 1), 0 failed; failure rate 25.0 %"
                                     + " of 4 that tried it (95 % interval 4.6 % to 69.9 %)"), "\(text.stdout)")
        #expect(text.stdout.hasSuffix("8 reports, 3 unreadable report lines\n"), "\(text.stdout)")

        let json = try PkgctlProcess.run(["fleet", "report", "--json", "-"], environment: [:], stdin: log)
        struct Summary: Decodable {
            struct Release: Decodable { let package, release: String; let devices, installs: Int; let rollbacks: [String: Int] }
            let releases: [Release]
            let reports: Int
        }
        let summary = try JSONDecoder().decode(Summary.self, from: Data(json.stdout.utf8))
        #expect(summary.reports == 8)
        #expect(summary.releases.map { "\($0.release) \($0.devices) \($0.installs) \($0.rollbacks)" }
                == ["1.0.0 4 4 [:]", "1.1.0 4 3 [\"exit\": 1]"])
    }
}
