import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The small canary, with real devices: `pkgctl update --health-check` against nginx,
/// `fleet watch` on nginx's own log after each round. A bad release at 5 % of 60 devices halts
/// in the round its first step reports, and a good one after it reaches 100 % although the salt
/// puts a single device in its 5 % share (the watch waited for two, forever, before `--max-holds`).
@Suite struct FleetCanaryTests {
    let temp: TemporaryDirectory
    let out: String
    /// Fewer devices under a sanitizer, where each update is several times slower.
    let devices = (0..<(Sanitizer.isActive ? 20 : 60)).map { "canary-\($0)" }

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
    }

    /// A salt that puts exactly `count` of the devices below `percent` (searched, bounded).
    private func salt(putting count: Int, below percent: Double) throws -> String {
        let found = (0..<100_000).lazy.map { "salt-\($0)" }.first { salt in
            devices.count(where: { Rollout.bucket(deviceID: $0, salt: salt) < percent }) == count
        }
        return try #require(found)
    }

    private func pack(_ version: String, from source: String, rollout: Double, salt: String) throws {
        try BundleFixtures.packDemo(version, into: out, from: source, ["--rollout", "\(Int(rollout))"])
        try BundleFixtures.editManifest(in: out) { $0.packages[0].rollout?.salt = salt }
    }

    /// Every device polls once (two at a time); `failing` devices fail their health check.
    private func round(_ manifest: String, failing: Set<String> = []) {
        DispatchQueue.concurrentPerform(iterations: devices.count) { index in
            let device = devices[index]
            _ = try? PkgctlProcess.run(["update", "--root", temp.path("stores/\(device)"), "--manifest", manifest,
                                        "--device-id", device, "--health-check", failing.contains(device) ? "exit 1" : "true"])
        }
    }

    private func active() -> [String: Int] {
        devices.reduce(into: [:]) { counts, device in
            counts[PackageStore(root: temp.path("stores/\(device)")).activeVersion(of: "demo") ?? "none", default: 0] += 1
        }
    }

    @Test func aBadCanaryHaltsAtItsFirstStepAndAGoodOneReachesEveryDeviceWhateverItsShareHolds() throws {
        let nginx = try NginxOrigin(root: out, accessLog: true)
        let manifest = nginx.baseURL + "/manifest.json"
        try BundleFixtures.packDemo("1.0.0", into: out)
        round(manifest)
        #expect(active() == ["1.0.0": devices.count])
        let options = ["--interval", "0", "--max-failure-rate", "10", "--min-devices", "2", "--steps", "5,25,50,100"]
        func watch() throws -> PkgctlProcess.Result {
            _ = nginx.settledAccessLog()
            let log = try #require(nginx.combinedAccessLogPath)
            return try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", log] + options)
        }

        // Three devices in the 5 % share, two of them fail: halted in the first round.
        let bad = try salt(putting: 3, below: 5)
        try pack("1.1.0", from: "1.1.0", rollout: 5, salt: bad)
        let share = Set(devices.filter { Rollout.bucket(deviceID: $0, salt: bad) < 5 })
        round(manifest, failing: Set(share.sorted().prefix(2)))
        let halted = try watch()
        #expect(halted.status == 2, "\(halted.stdout)\(halted.stderr)")
        #expect(halted.stdout.hasPrefix("demo 1.1.0 at 5 %: halt: 2 of 3 devices failed"), "\(halted.stdout)")
        round(manifest)
        #expect(active() == ["1.0.0": devices.count], "every device is back on the release before")

        // A good release whose 5 % share holds one device: it moves on after --max-holds (3).
        try pack("1.2.0", from: "1.1.0", rollout: 5, salt: try salt(putting: 1, below: 5))
        var decisions: [String] = []
        for _ in 0..<10 {
            round(manifest)
            let decided = try watch()
            #expect(decided.status == 0, "\(decided.stdout)\(decided.stderr)")
            decisions.append(decided.stdout)
            if decided.stdout.contains(": done: ") { break }
        }
        #expect(decisions.count <= 8, "\(decisions)")
        #expect(decisions.filter { $0.contains(": hold: ") }.count == 3, "\(decisions)")
        #expect(decisions.contains { $0.hasPrefix("demo 1.2.0 at 5 %: advance to 25 %: 3 intervals at 5 % gave 1 of 2 devices") },
                "\(decisions)")
        #expect(decisions.last?.hasPrefix("demo 1.2.0 at 100 %: done: 0 of") == true, "\(decisions)")
        #expect(active() == ["1.2.0": devices.count])
    }
}
