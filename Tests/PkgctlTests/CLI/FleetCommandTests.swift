import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// pack --rollout, rollout, revoke and update --device-id / --jitter as a
/// publisher's scripts and a fleet's timers call them.
@Suite struct FleetCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
    }

    private func run(_ arguments: [String]) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(arguments)
    }

    private func pack(_ source: String, _ version: String, _ extra: [String] = []) throws {
        let result = try run(["pack", BundleFixtures.demoSource(source), "--name", "demo", "--version", version,
                              "--out", origin, "--route", "www.example.com/app"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
    }

    private func update(_ device: String, _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try run(["update", "--root", temp.path + "/" + device, "--manifest", manifestURL, "--device-id", device] + extra)
    }

    @Test func rolloutRevokeAndDeviceIDs() throws {
        try pack("1.0.0", "1.0.0")
        let early = (0..<20).map { "d\($0)" }   // in the fleet before the rollout
        for device in early { #expect(try update(device).stdout == "demo: installed 1.0.0\n") }
        try pack("1.1.0", "2.0.0", ["--rollout", "50"])
        let salt = try #require(try PublishedManifest.read(origin + "/manifest.json")?.manifest.packages.first?.rollout?.salt)
        func included(_ device: String) -> Bool { Rollout.bucket(deviceID: device, salt: salt) < 50 }
        let inside = try #require(early.first(where: included))
        let outside = try #require(early.first { !included($0) })
        let late = try #require((20..<200).map { "d\($0)" }.first(where: included))   // joins during the rollout
        #expect(try update(inside).stdout == "demo: 1.0.0 -> 2.0.0 (upgraded)\n")
        #expect(try update(outside).stdout
                == "demo: 1.0.0 is up to date (2.0.0 is rolling out to 50 % of devices; this device is not in it yet)\n")
        #expect(try update(late).stdout == "demo: installed 2.0.0\n")

        let lower = try run(["rollout", origin, "demo", "10"])
        #expect(lower.status == 1)
        #expect(lower.stderr == "pkgctl: demo 2.0.0 is rolled out to 50 %; lowering it to 10 % needs force (pass --force)\n")
        #expect(try run(["rollout", origin, "demo", "75"]).stdout == "demo 2.0.0: 75 % of devices\n")
        #expect(try run(["rollout", origin, "demo", "100"]).stdout == "demo 2.0.0: every device\n")
        #expect(try update(outside).stdout == "demo: 1.0.0 -> 2.0.0 (upgraded)\n")

        let revoke = try run(["revoke", origin, "demo", "2.0.0"])
        #expect(revoke.stdout == "demo: 2.0.0 revoked; the manifest names 2.0.0\n")
        for device in [inside, outside] {
            let result = try update(device)
            #expect(result.status == 0)
            #expect(result.stdout == "demo: 2.0.0 was revoked; switched back to 1.0.0\n", "\(device)")
        }
        // A device that never ran anything else keeps serving and says why, every run.
        let stuck = try update(late)
        #expect(stuck.status == 1)
        #expect(stuck.stderr == "pkgctl: demo 2.0.0: revoked, and no other version is retained to switch back to; it keeps serving\n")
        // A device new to the fleet installs nothing revoked.
        #expect(try update("newcomer").stdout == "demo: 2.0.0 is revoked; nothing installed\n")
        #expect(PackageStore(root: temp.path + "/newcomer").activeVersion(of: "demo") == nil)
    }

    @Test func signedManifestsStaySignedThroughRolloutAndRevoke() throws {
        _ = try run(["keygen", "--out", temp.path + "/keys"])
        let key = temp.path + "/keys/release.key"
        try pack("1.0.0", "1.0.0", ["--sign", key])
        try pack("1.1.0", "2.0.0", ["--sign", key, "--rollout", "10"])
        let unsigned = try run(["rollout", origin, "demo", "20"])
        #expect(unsigned.status == 1)
        #expect(unsigned.stderr.contains("is signed; changing it needs a signing key to keep it signed (pass --sign KEYFILE)"))
        #expect(try run(["rollout", origin, "demo", "20", "--sign", key]).status == 0)
        #expect(try run(["revoke", origin, "demo", "2.0.0", "--sign", key]).status == 0)
        let published = try #require(try PublishedManifest.read(origin + "/manifest.json"))
        #expect(published.isSigned)
        #expect(published.manifest.sequence == 4)
        #expect(published.manifest.packages.first?.version == "1.0.0")
        let result = try update("any", ["--trusted-key", temp.path + "/keys/release.pub"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "demo: installed 1.0.0\n")
    }

    /// README: revoking the version a rollout is bringing in sends the entry back to the
    /// rollout's `previous`, and the devices that took it follow.
    @Test func revokingARolloutGoesBackToItsPrevious() throws {
        try pack("1.0.0", "1.0.0")
        try pack("1.1.0", "2.0.0", ["--rollout", "100"])
        #expect(try update("d1").stdout == "demo: installed 2.0.0\n")
        try pack("1.0.0", "3.0.0", ["--rollout", "100", "--force"])
        #expect(try run(["rollout", origin, "demo", "100"]).status == 0)
        try pack("1.1.0", "4.0.0", ["--rollout", "10"])
        let salt = try #require(try PublishedManifest.read(origin + "/manifest.json")?.manifest.packages.first?.rollout?.salt)
        let early = try #require((0..<500).map { "e\($0)" }.first { Rollout.bucket(deviceID: $0, salt: salt) < 10 })
        #expect(try update(early).stdout == "demo: installed 4.0.0\n")
        let revoke = try run(["revoke", origin, "demo", "4.0.0"])
        #expect(revoke.status == 0, "\(revoke.stderr)")
        #expect(revoke.stdout == "demo: 4.0.0 revoked; the manifest names 3.0.0\n")
        let manifest = try #require(try PublishedManifest.read(origin + "/manifest.json")?.manifest)
        #expect(manifest.packages.first?.version == "3.0.0")
        #expect(manifest.packages.first?.revoked == ["4.0.0"])
        #expect(try update(early).stdout == "demo: 4.0.0 -> 3.0.0 (downgraded)\n")
    }

    @Test func jitterWaitsAtMostWhatItSays() throws {
        try pack("1.0.0", "1.0.0")
        let started = ContinuousClock.now
        #expect(try update("d1", ["--jitter", "0.5"]).status == 0)
        #expect(ContinuousClock.now - started < .seconds(10))

        // Before taking the lock: with the store locked, --no-wait exits 75 only after the
        // random wait. Eight runs of --jitter 3 wait 12 s on average, and less than 2 s in all
        // with a probability of (2/3)^8/8! (1e-6); eight runs of --jitter 0 time the rest, one of
        // each in turn, so a machine whose load changes slows both alike (eight TSan runs of one
        // kind, then eight of the other, once differed by 0.94 s with --jitter 1).
        func lockedRun(jitter: String) throws -> Duration {
            let start = ContinuousClock.now
            let result = try update("d1", ["--jitter", jitter, "--no-wait"])
            #expect(result.status == 75, "\(result.stderr)")
            return ContinuousClock.now - start
        }
        var without = Duration.zero, with = Duration.zero
        try PackageStore(root: temp.path + "/d1").locked {
            for _ in 0..<8 {
                without += try lockedRun(jitter: "0")
                with += try lockedRun(jitter: "3")
            }
        }
        #expect(with - without > .seconds(2), "jitter 3: \(with), jitter 0: \(without)")
        #expect(with - without < .seconds(8 * 3) + .seconds(5), "never more than 3 s each")
        // "--jitter -1" would read -1 as a flag; "=" reaches the range check.
        let negative = try run(["update", "--root", temp.path + "/d2", "--manifest", manifestURL, "--jitter=-1"])
        #expect(negative.status == 64)
        #expect(negative.stderr == "pkgctl: --jitter must be 0 to 86400 seconds\n", "\(negative.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/d2/packages"), "refused before the store is touched")
    }

    @Test func theDefaultDeviceIDIsKeptInTheStore() throws {
        try pack("1.0.0", "1.0.0")
        let root = temp.path + "/store"
        #expect(try run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        // Made by that run (reading it through PackageStore.deviceID() would make one too).
        let file = root + "/state/device-id"
        let id = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id) != nil, "\(id)")
        #expect(try PackageStore(root: root).deviceID() == id)
        #expect(try run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        #expect(try PackageStore(root: root).deviceID() == id, "kept across runs")
        #expect(try PackageStore(root: temp.path + "/other").deviceID() != id, "each store its own")
    }
}
