import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `fleet watch` never holds forever: a confident rate from two failed devices halts, a hold for
/// want of evidence lasts `--max-holds` intervals, and what it cannot decide exits 3 for a person.
/// Logs are written line by line, to pin each decision; `FleetCanaryTests` drives real devices.
@Suite struct FleetWatchHoldLimitTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
        try BundleFixtures.packDemo("1.0.0", into: out)
    }

    private func watch(_ reports: [OutcomeReport], _ options: [String], name: String = "access.log") throws -> PkgctlProcess.Result {
        let lines = reports.map {
            #"127.0.0.1 - - [25/Nov/2026:17:00:00 +0000] "GET /report/v1?\#($0.query) HTTP/1.1" 204 0 "-" "-""#
        }
        let log = try temp.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: name)
        return try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", log, "--interval", "0"] + options)
    }

    private func reports(_ release: String, ok: Int, failed: Int = 0, prefix: String = "d") -> [OutcomeReport] {
        (0..<(ok + failed)).map { index in
            OutcomeReport(package: "demo", release: release, from: "1.0.0", outcome: index < ok ? .upgraded : .rolledBack,
                          cause: index < ok ? nil : "exit", device: "\(prefix)\(index)", client: "0.1.0")
        }
    }

    private var entry: ManifestEntry? {
        (try? PublishedManifest.read(out + "/manifest.json"))??.manifest.packages.first
    }

    @Test func twoFailedDevicesOfThreeHaltASmallCanaryAtOnce() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "5"])
        // The issue's canary: at 5 % of 60 devices three ran it and two failed. The floor of 3 failed
        // devices held it forever; the interval's bottom, 20.8 %, is well above 10 %.
        let halted = try watch(reports("1.1.0", ok: 1, failed: 2), ["--max-failure-rate", "10", "--min-devices", "2",
                                                                    "--steps", "5,25,50,100"])
        #expect(halted.status == 2)
        #expect(halted.stdout == "demo 1.1.0 at 5 %: halt: 2 of 3 devices failed (66.7 %, 95 % interval 20.8 % to 93.9 %), "
                + "above 10.0 %; revoked, devices go back to 1.0.0\n")
        #expect(entry?.version == "1.0.0" && entry?.revoked == ["1.1.0"])
        // Its successor is not blocked by it.
        try BundleFixtures.packDemo("1.2.0", into: out, from: "1.1.0", ["--rollout", "5"])
        #expect(entry?.version == "1.2.0")
    }

    @Test func oneFailureNeverHaltsButIsHandedToAPersonAfterMaxHolds() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "1"])
        let options = ["--max-failure-rate", "5", "--min-devices", "3", "--max-holds", "2"]
        let one = reports("1.1.0", ok: 0, failed: 1)
        for holds in 1...2 {
            let held = try watch(one, options)
            #expect(held.status == 0)
            #expect(held.stdout == "demo 1.1.0 at 1 %: hold: 1 of 3 devices tried it; 1 of 1 devices failed (100.0 %, 95 % "
                    + "interval 20.7 % to 100.0 %); held \(holds) of 2 intervals\n")
        }
        let undecided = try watch(one, options)
        #expect(undecided.status == 3)
        #expect(undecided.stdout.hasPrefix("demo 1.1.0 at 1 %: undecided: one device failed it, above the threshold, for 2 "
                                           + "intervals: too little to halt on, too much to advance;"), "\(undecided.stdout)")
        #expect(entry?.version == "1.1.0" && entry?.revoked == [], "one report, forged or not, never halts a release")
        #expect(entry?.rollout?.percent == 1)
    }

    @Test func twoForgedFailuresAmongATenDeviceStepHaltOnlyAfterMaxHolds() throws {
        // 1,000 devices at 1 %: about ten run the release, all well, and two forged reports say
        // they failed. 2 of 12 is 16.7 %, above 5 %, but the interval's bottom (4.7 %) is not:
        // no halt at once. The step holds no more devices, so after --max-holds intervals the
        // watch halts (the safe side: devices go back, a person republishes), as the README says.
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "1"])
        let options = ["--max-failure-rate", "5", "--min-devices", "10"]
        let forged = reports("1.1.0", ok: 10) + reports("1.1.0", ok: 0, failed: 2, prefix: "forged")
        for holds in 1...3 {
            let held = try watch(forged, options)
            #expect(held.stdout == "demo 1.1.0 at 1 %: hold: above the threshold with too few failed devices to halt it; 2 of 12 "
                    + "devices failed (16.7 %, 95 % interval 4.7 % to 44.8 %); held \(holds) of 3 intervals\n")
        }
        let halted = try watch(forged, options)
        #expect(halted.status == 2)
        #expect(halted.stdout.hasPrefix("demo 1.1.0 at 1 %: halt: above the threshold for 3 intervals without the devices "
                                        + "to confirm it; 2 of 12 devices failed"), "\(halted.stdout)")
    }

    @Test func aStepWhoseShareHoldsTooFewDevicesMovesOnAfterMaxHolds() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "5"])
        // The issue's good release: the 5 % bucket held one device, the watch waited for two.
        let options = ["--max-failure-rate", "10", "--min-devices", "2", "--steps", "5,25,50,100"]
        let single = reports("1.1.0", ok: 1)
        for holds in 1...3 {
            #expect(try watch(single, options).stdout == "demo 1.1.0 at 5 %: hold: 1 of 2 devices tried it; 0 of 1 devices "
                    + "failed (0.0 %, 95 % interval 0.0 % to 79.3 %); held \(holds) of 3 intervals\n")
        }
        let moved = try watch(single, options)
        #expect(moved.status == 0)
        #expect(moved.stdout == "demo 1.1.0 at 5 %: advance to 25 %: 3 intervals at 5 % gave 1 of 2 devices, none failing "
                + "above the threshold; 0 of 1 devices failed (0.0 %, 95 % interval 0.0 % to 79.3 %)\n")
        #expect(entry?.rollout?.percent == 25)
        // The next step starts its own count.
        #expect(try watch(single, options).stdout.hasSuffix("held 1 of 3 intervals\n"))
    }

    @Test func aStepNoDeviceTriedMovesOnOnlyWhenTheFleetIsSeenReporting() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "1"])
        let options = ["--max-failure-rate", "5", "--min-devices", "3", "--max-holds", "1"]
        func installed(_ count: Int) -> [OutcomeReport] {
            (0..<count).map {
                OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: .installed, device: "d\($0)", client: "0.1.0")
            }
        }
        // Two devices report the package at all: too few to tell an empty share from a fleet
        // that does not reach this origin; a person decides.
        #expect(try watch(installed(2), options).status == 0)
        let undecided = try watch(installed(2), options)
        #expect(undecided.status == 3)
        #expect(undecided.stdout == "demo 1.1.0 at 1 %: undecided: no device tried it in 1 interval and 2 reported demo at "
                + "all; check that devices poll and report to this origin, or move it on by hand (pkgctl rollout \(out) demo 5)\n")
        #expect(entry?.rollout?.percent == 1)
        // Five do: the 1 % share simply holds none of them, and the next step is tried.
        let moved = try watch(installed(5), options)
        #expect(moved.status == 0)
        #expect(moved.stdout == "demo 1.1.0 at 1 %: advance to 5 %: 1 interval at 1 % gave no device of the 5 reporting demo\n")
        #expect(entry?.rollout?.percent == 5)
    }

    @Test func aLogThatCannotBeReadIsUndecided() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "1"])
        let missing = try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", temp.path("nonexistent.log"), "--interval",
                                             "0", "--max-failure-rate", "5", "--min-devices", "2"])
        #expect(missing.status == 3)
        #expect(missing.stderr.hasPrefix("pkgctl: ") && missing.stderr.contains("nonexistent.log"), "\(missing.stderr)")
    }

    @Test func jsonCarriesTheDecisionAndItsNumbers() throws {
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "5"])
        let result = try watch(reports("1.1.0", ok: 1, failed: 2), ["--max-failure-rate", "10", "--min-devices", "2",
                                                                    "--json", "--dry-run"])
        #expect(result.status == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["decision"] as? String == "halt")
        #expect(object["package"] as? String == "demo" && object["version"] as? String == "1.1.0")
        #expect(object["percentBefore"] as? Double == 5 && object["percentAfter"] as? Double == 5)
        #expect(object["devices"] as? Int == 3 && object["failedDevices"] as? Int == 2)
        #expect(abs((object["failureRateLow"] as? Double ?? 0) - 0.208) < 0.001)
        #expect(object["maxFailureRate"] as? Double == 0.1 && object["maxHolds"] as? Int == 3)
        #expect(object["dryRun"] as? Bool == true)
        #expect((object["line"] as? String)?.hasSuffix("(dry run)") == true)
        #expect(entry?.revoked == [], "a dry run changes nothing")
    }
}
