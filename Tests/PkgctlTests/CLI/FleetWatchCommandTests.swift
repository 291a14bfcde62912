import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl fleet watch`: a rollout that stops itself. One test drives real devices against
/// nginx and reads nginx's own log; the others feed it logs written line by line, to pin
/// each decision.
@Suite struct FleetWatchCommandTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
    }

    private func pack(_ version: String, _ extra: [String] = [], from source: String? = nil) throws {
        try BundleFixtures.packDemo(version, into: out, from: source, extra)
    }

    private func watch(_ log: String, _ extra: [String]) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", log] + extra)
    }

    /// A log in nginx's combined format holding `reports`.
    private func log(_ reports: [OutcomeReport], name: String = "access.log") throws -> String {
        let lines = reports.map {
            #"127.0.0.1 - - [25/Nov/2026:17:00:00 +0000] "GET /report/v1?\#($0.query) HTTP/1.1" 404 153 "-" "-""#
        }
        return try temp.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: name)
    }

    private func reports(_ release: String, ok: Int, failed: Int = 0) -> [OutcomeReport] {
        (0..<(ok + failed)).map { index in
            OutcomeReport(package: "demo", release: release, from: "1.0.0", outcome: index < ok ? .upgraded : .rolledBack,
                          cause: index < ok ? nil : "exit", device: "device\(index)", client: "0.1.0")
        }
    }

    private var rollout: Double? {
        (try? PublishedManifest.read(out + "/manifest.json"))??.manifest.packages.first?.rollout?.percent
    }

    @Test func aBadReleaseIsHaltedAndEveryDeviceThatRanItGoesBack() throws {
        let nginx = try NginxOrigin(root: out, accessLog: true)
        let manifest = nginx.baseURL + "/manifest.json"
        try pack("1.0.0")
        let stores = (0..<4).map { temp.path("device\($0)") }
        for (index, store) in stores.enumerated() {
            #expect(try PkgctlProcess.run(["update", "--root", store, "--manifest", manifest, "--device-id", "d\(index)"]).status == 0)
        }
        try pack("1.1.0")
        for (index, store) in stores.enumerated() {
            _ = try PkgctlProcess.run(["update", "--root", store, "--manifest", manifest, "--device-id", "d\(index)",
                                       "--health-check", index < 3 ? "exit 1" : "true"])
        }
        _ = nginx.settledAccessLog()
        let log = try #require(nginx.combinedAccessLogPath)
        let options = ["--interval", "0", "--max-failure-rate", "20", "--min-devices", "4"]
        let evidence = "3 of 4 devices failed (75.0 %, 95 % interval 30.1 % to 95.4 %), above 20.0 %"

        let dry = try watch(log, options + ["--dry-run"])
        #expect(dry.status == 2, "a halt, even a dry run's, exits 2: \(dry.stderr)")
        #expect(dry.stdout == "demo 1.1.0 at 100 %: halt: \(evidence) (dry run)\n")
        #expect(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first?.revoked == [])

        let halted = try watch(log, options)
        #expect(halted.stdout == "demo 1.1.0 at 100 %: halt: \(evidence); revoked, devices go back to the version they ran before\n",
                "\(halted.stderr)")
        #expect(halted.status == 2)
        #expect(try watch(log, options).stdout == "demo 1.1.0 at 100 %: idle: revoked already\n", "a second run changes nothing")
        for (index, store) in stores.enumerated() {
            _ = try PkgctlProcess.run(["update", "--root", store, "--manifest", manifest, "--device-id", "d\(index)"])
            #expect(PackageStore(root: store).activeVersion(of: "demo") == "1.0.0", "device \(index)")
        }
    }

    @Test func aGoodReleaseAdvancesStepByStepOnceEnoughDevicesReportedAndTheIntervalPassed() throws {
        try pack("1.0.0")
        try pack("1.1.0", ["--rollout", "1"])
        let options = ["--steps", "1,5,25,100", "--max-failure-rate", "5", "--min-devices", "3"]
        let none = try watch(try log([], name: "empty.log"), options + ["--interval", "0"])
        #expect(none.stdout == "demo 1.1.0 at 1 %: undecided: the logs hold no outcome report; check that --log is the "
                + "origin's access log and that devices report (update without --no-report)\n")
        #expect(none.status == 3, "a log with no report cannot decide anything: someone must look")

        let three = try log(reports("1.1.0", ok: 3))
        let waiting = try watch(three, options + ["--interval", "2s"])
        #expect(waiting.stdout.hasPrefix("demo 1.1.0 at 1 %: hold: 5 % in "), "\(waiting.stdout)")
        #expect(rollout == 1)
        #expect(try watch(three, options + ["--interval", "0", "--dry-run"]).stdout.hasPrefix("demo 1.1.0 at 1 %: advance to 5 %: "))
        #expect(rollout == 1, "a dry run changes nothing")
        Thread.sleep(forTimeInterval: 2.1)
        #expect(try watch(three, options + ["--interval", "2s"]).stdout.hasPrefix("demo 1.1.0 at 1 %: advance to 5 %: 0 of 3 devices failed"))
        #expect(rollout == 5)
        // The interval starts again at each step.
        #expect(try watch(three, options + ["--interval", "1h"]).stdout.hasPrefix("demo 1.1.0 at 5 %: hold: 25 % in "))
        #expect(try watch(three, options + ["--interval", "0"]).stdout.hasPrefix("demo 1.1.0 at 5 %: advance to 25 %"))
        #expect(try watch(three, options + ["--interval", "0"]).stdout.hasPrefix("demo 1.1.0 at 25 %: advance to 100 %"))
        #expect(rollout == nil)
        #expect(try watch(three, options + ["--interval", "0"]).stdout.hasPrefix("demo 1.1.0 at 100 %: done: 0 of 3 devices failed"))
    }

    @Test func fewFailuresAmongFewDevicesHoldButAConfidentRateHalts() throws {
        try pack("1.0.0")
        try pack("1.1.0", ["--rollout", "5"])
        let options = ["--interval", "0", "--max-failure-rate", "5", "--min-devices", "20"]
        // 1 of 10: 10 %, but the interval reaches down to 1.8 %: not yet known to be bad.
        let unsure = try watch(try log(reports("1.1.0", ok: 9, failed: 1), name: "unsure.log"), options)
        #expect(unsure.stdout == "demo 1.1.0 at 5 %: hold: 10 of 20 devices tried it; 1 of 10 devices failed (10.0 %, "
                + "95 % interval 1.8 % to 40.4 %); held 1 of 3 intervals\n")
        #expect(unsure.status == 0)
        // 4 of 10: even the interval's bottom (16.8 %) is above 5 %: halted with fewer devices than --min-devices.
        let sure = try watch(try log(reports("1.1.0", ok: 6, failed: 4), name: "sure.log"), options)
        #expect(sure.stdout.hasPrefix("demo 1.1.0 at 5 %: halt: 4 of 10 devices failed (40.0 %, 95 % interval 16.8 % to 68.7 %)"),
                "\(sure.stdout)")
        #expect(sure.status == 2)
        let entry = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first)
        #expect(entry.version == "1.0.0" && entry.revoked == ["1.1.0"], "the rollout went back to the release before")
    }

    @Test func oneFailureOrDevicesThatNeverRanItDecideNothing() throws {
        try pack("1.0.0")
        try pack("1.1.0", ["--rollout", "1"])
        let options = ["--interval", "0", "--max-failure-rate", "5", "--min-devices", "1"]
        // One failure (a freak one, or one forged request: reports are not authenticated) is
        // above any threshold, and its interval's bottom is 20.7 %; it still halts nothing.
        let one = try watch(try log(reports("1.1.0", ok: 0, failed: 1), name: "one.log"), options)
        #expect(one.stdout == "demo 1.1.0 at 1 %: hold: above the threshold with too few failed devices to halt it; 1 of 1 "
                + "devices failed (100.0 %, 95 % interval 20.7 % to 100.0 %); held 1 of 3 intervals\n", "\(one.stdout)")
        #expect(rollout == 1)
        // 97 staged devices (outside the rollout, never ran it) do not water down 3 failures of 3.
        let staged = (0..<97).map {
            OutcomeReport(package: "demo", release: "1.1.0", from: "1.0.0", outcome: .staged, device: "staged\($0)", client: "0.1.0")
        }
        let halted = try watch(try log(staged + reports("1.1.0", ok: 0, failed: 3), name: "staged.log"), options)
        #expect(halted.stdout.hasPrefix("demo 1.1.0 at 1 %: halt: 3 of 3 devices failed (100.0 %"), "\(halted.stdout)")
        // A failed download retried with success is no failure of the release.
        try pack("1.2.0", ["--rollout", "1"], from: "1.1.0")
        let retried = (0..<3).flatMap { index in
            [OutcomeReport(package: "demo", release: "1.2.0", from: "1.0.0", outcome: .failed, errorCode: "transferFailed",
                           device: "r\(index)", client: "0.1.0"),
             OutcomeReport(package: "demo", release: "1.2.0", from: "1.0.0", outcome: .upgraded, device: "r\(index)", client: "0.1.0")]
        }
        #expect(try watch(try log(retried, name: "retried.log"), options).stdout
                .hasPrefix("demo 1.2.0 at 1 %: advance to 5 %: 0 of 3 devices failed"))
    }

    @Test func itWaitsForAPackHoldingTheOutputFoldersLock() throws {
        try pack("1.0.0")
        try pack("1.1.0", ["--rollout", "1"])
        var lock: StoreLock? = try StoreLock(directory: out)
        let (process, output, _) = try PkgctlProcess.start(["fleet", "watch", out, "demo", "--log",
                                                            try log(reports("1.1.0", ok: 3)), "--interval", "0",
                                                            "--max-failure-rate", "5", "--min-devices", "3"])
        defer { ProcessLaunch.stop(process) }
        Thread.sleep(forTimeInterval: 1)
        #expect(process.isRunning, "it waits while another publisher holds the lock")
        #expect(rollout == 1)
        #expect(lock != nil)
        lock = nil  // released: the watch goes on
        let line = try PkgctlProcess.firstLine(of: output, timeout: 20)
        #expect(line.hasPrefix("demo 1.1.0 at 1 %: advance to 5 %"), "\(line)")
        #expect(rollout == 5)
    }

    @Test func aSignedManifestIsChangedOnlyWithTheKeyAndStaysSigned() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", temp.path("keys"), "--name", "release"]).status == 0)
        let key = temp.path("keys/release.key")
        try pack("1.0.0", ["--sign", key])
        try pack("1.1.0", ["--rollout", "1", "--sign", key])
        let options = ["--interval", "0", "--max-failure-rate", "5", "--min-devices", "3"]
        let three = try log(reports("1.1.0", ok: 3))
        let unsigned = try watch(three, options)
        #expect(unsigned.status == 64 || unsigned.status == 1)
        #expect(unsigned.stderr.contains("is signed; changing it needs a signing key"), "\(unsigned.stderr)")
        #expect(rollout == 1)
        #expect(try watch(three, options + ["--sign", key]).stdout.hasPrefix("demo 1.1.0 at 1 %: advance to 5 %"))
        #expect(try PublishedManifest.read(out + "/manifest.json")?.isSigned == true)
    }

    @Test(arguments: [
        (["--steps", "5,1"], "pkgctl: --steps must be increasing percentages above 0, at most 100, comma-separated (got '5,1')\n"),
        (["--interval", "soon"], "pkgctl: --interval must be a duration: SECONDS, or a number followed by s, m, h or d (got 'soon')\n"),
    ])
    func badOptionsAreRefusedInOneLine(extra: [String], message: String) throws {
        var options = ["--log", "-", "--interval", "0", "--max-failure-rate", "5", "--min-devices", "3"]
        if extra.first == "--interval" { options.removeSubrange(2...3) }
        let result = try PkgctlProcess.run(["fleet", "watch", out, "demo"] + options + extra)
        #expect(result.status == 64)
        #expect(result.stderr == message)
    }
}
