import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Staged rollout and revocation, decided on each device from one manifest:
/// separate stores and device ids against one origin, real zips.
@Suite struct RolloutTests {
    let temp: TemporaryDirectory
    let originRoot: String
    var manifestURL: String { "file://" + originRoot + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
    }

    struct Device {
        let id: String
        let store: PackageStore
    }

    func devices(_ count: Int) -> [Device] {
        (0..<count).map { Device(id: "device-\($0)", store: PackageStore(root: temp.path + "/device-\($0)")) }
    }

    func update(_ device: Device) throws -> UpdateReport {
        try Updater(store: device.store, manifestURL: manifestURL, deviceID: device.id).run()
    }

    func publish(_ source: String, version: String, rollout: Double? = nil) throws {
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource(source), name: "demo", version: version, options: .init(routes: ["www.example.com/app"], rolloutPercent: rollout))
    }

    var salt: String {
        get throws { try #require(try PublishedManifest.read(originRoot + "/manifest.json")?.manifest.packages.first?.rollout?.salt) }
    }

    @Test func bucketsAreStableUniformAndOnlyGrowWithThePercentage() {
        let ids = (0..<10_000).map { "device-\($0)" }
        let buckets = ids.map { Rollout.bucket(deviceID: $0, salt: "s1") }
        #expect(buckets == ids.map { Rollout.bucket(deviceID: $0, salt: "s1") }, "deterministic")
        for percent in [10.0, 50.0] {
            let share = Double(buckets.filter { $0 < percent }.count) / 100
            #expect(abs(share - percent) < 1.5, "\(share) % of devices for \(percent) %")
        }
        var included = Set<String>()
        for percent in stride(from: 0.0, through: 100.0, by: 5) {
            let now = Set(ids.filter { Rollout(percent: percent, salt: "s1", previous: nil).includes(deviceID: $0) })
            #expect(now.isSuperset(of: included), "raising to \(percent) % moved a device out")
            included = now
        }
        #expect(included.count == ids.count)
        let other = ids.map { Rollout.bucket(deviceID: $0, salt: "s2") }
        let firstWithS1 = Set(ids.indices.filter { buckets[$0] < 10 })
        let firstWithS2 = Set(ids.indices.filter { other[$0] < 10 })
        #expect(firstWithS1.intersection(firstWithS2).count < firstWithS1.count / 4, "a new salt picks other canaries")
    }

    @Test func aRolloutReachesExactlyItsBucketsAndNoDeviceMovesBack() throws {
        let fleet = devices(24)
        try publish("1.0.0", version: "1.0.0")
        for device in fleet { #expect(try update(device).succeeded) }

        try publish("1.1.0", version: "2.0.0", rollout: 25)
        let salt = try self.salt
        var onV2 = Set<String>()
        for percent in [25.0, 60.0, 100.0] {
            if percent > 25 { try PublishingFolder(originRoot).setRollout(name: "demo", percent: percent) }
            for device in fleet {
                let report = try update(device)
                let expected = percent >= 100 || Rollout.bucket(deviceID: device.id, salt: salt) < percent
                    || onV2.contains(device.id)
                #expect(device.store.activeVersion(of: "demo") == (expected ? "2.0.0" : "1.0.0"), "\(device.id) at \(percent) %")
                #expect(report.succeeded)
                if expected { onV2.insert(device.id) }
            }
        }
        #expect(onV2.count == fleet.count)
        // Lowering needs --force, and a device on the version keeps it.
        #expect(throws: PkgError.self) { try PublishingFolder(originRoot).setRollout(name: "demo", percent: 10) }
        try PublishingFolder(originRoot).setRollout(name: "demo", percent: 0, force: true)
        for device in fleet {
            _ = try update(device)
            #expect(device.store.activeVersion(of: "demo") == "2.0.0")
        }
    }

    @Test func aFirstRolloutWithNothingBeforeItLeavesOtherDevicesWaiting() throws {
        let fleet = devices(12)
        try publish("1.0.0", version: "1.0.0", rollout: 50)
        let salt = try self.salt
        for device in fleet {
            let report = try update(device)
            if Rollout.bucket(deviceID: device.id, salt: salt) < 50 {
                #expect(report.packages.map(\.action) == [.installed])
            } else {
                #expect(report.packages.map(\.action) == [.staged])
                #expect(device.store.activeVersion(of: "demo") == nil)
            }
        }
    }

    @Test func revokingTheNamedVersionSendsEveryDeviceBack() throws {
        let fleet = devices(6)
        try publish("1.0.0", version: "1.0.0")
        for device in fleet { _ = try update(device) }
        try publish("1.1.0", version: "2.0.0", rollout: 50)
        try PublishingFolder(originRoot).setRollout(name: "demo", percent: 100)
        // At 100 % the rollout (and the version before it) is gone: the revocation falls back on each device's store.
        for device in fleet { _ = try update(device) }
        let entry = try PublishingFolder(originRoot).revoke(name: "demo", version: "2.0.0")
        #expect(entry.version == "2.0.0" && entry.revoked == ["2.0.0"])
        for device in fleet {
            let report = try update(device)
            #expect(report.packages.first?.action == .revoked)
            #expect(report.packages.first?.to == "1.0.0")
            #expect(device.store.activeVersion(of: "demo") == "1.0.0")
            #expect(try update(device).packages.first?.action == .unchanged, "never installed again")
        }
        let again = #expect(throws: PkgError.self) { try publish("1.1.0", version: "2.0.0") }
        #expect(again?.message == "demo 2.0.0 is revoked; publish another version")
    }

    @Test func revokingAVersionStillRollingOutRestoresTheOneBefore() throws {
        let fleet = devices(8)
        try publish("1.0.0", version: "1.0.0")
        for device in fleet { _ = try update(device) }
        try publish("1.1.0", version: "2.0.0", rollout: 50)
        for device in fleet { _ = try update(device) }
        let entry = try PublishingFolder(originRoot).revoke(name: "demo", version: "2.0.0")
        #expect(entry.version == "1.0.0" && entry.rollout == nil)
        for device in fleet {
            #expect(try update(device).succeeded)
            #expect(device.store.activeVersion(of: "demo") == "1.0.0")
        }
    }

    @Test func aRevokedVersionIsLeftForOneThatIsNeitherRevokedNorHeld() throws {
        let store = PackageStore(root: temp.path + "/device")
        func updater(_ id: String) -> Updater { Updater(store: store, manifestURL: manifestURL, keep: 3, deviceID: id) }
        try publish("1.0.0", version: "1.0.0")
        _ = try updater("any").run()
        try publish("1.1.0", version: "1.1.0")
        _ = try updater("any").run()
        try publish("1.0.0", version: "2.0.0", rollout: 50)
        let salt = try self.salt
        let id = try #require((0..<100).map { "d\($0)" }.first { Rollout.bucket(deviceID: $0, salt: salt) < 50 })
        _ = try updater(id).run()
        #expect(store.activeVersion(of: "demo") == "2.0.0")
        try store.locked { try store.hold("demo", version: "1.1.0") }
        // The manifest goes back to 1.1.0, which this device holds: it falls back on its store instead.
        #expect(try PublishingFolder(originRoot).revoke(name: "demo", version: "2.0.0").version == "1.1.0")
        let report = try updater(id).run()
        #expect(report.packages.first?.action == .revoked)
        #expect(report.packages.first?.to == "1.0.0")
        #expect(store.activeVersion(of: "demo") == "1.0.0", "1.1.0 is held, 2.0.0 revoked")
    }

    @Test func publishingGuardsAnUnfinishedRollout() throws {
        try publish("1.0.0", version: "1.0.0")
        try publish("1.1.0", version: "2.0.0", rollout: 10)
        let salt = try self.salt
        let next = #expect(throws: PkgError.self) { try publish("1.0.0", version: "3.0.0", rollout: 10) }
        #expect(next?.message == "demo 2.0.0 is still rolling out (10 %); halt it (pkgctl revoke \(originRoot) demo 2.0.0), "
                + "finish it (pkgctl rollout \(originRoot) demo 100), or force this one to replace it")
        #expect(next?.remedy == .force)
        // The same version again keeps its salt: no device drops out.
        try publish("1.1.0", version: "2.0.0", rollout: 20)
        #expect(try self.salt == salt)
        #expect(throws: PkgError.self) { try publish("1.1.0", version: "2.0.0", rollout: 5) }
        // A staged manifest is schema 2, so a client that would ignore the rollout refuses it.
        let path = originRoot + "/manifest.json"
        #expect(try PublishedManifest.read(path)?.manifest.schemaVersion == 2)
        var downgraded = try #require(try PublishedManifest.read(path)).manifest
        downgraded.schemaVersion = 1
        let error = #expect(throws: PkgError.self) { try Manifest.parse(Array(try downgraded.encoded()), source: "m") }
        #expect(error?.message == "manifest m: 'rollout' and 'revoked' need schemaVersion 2, so older clients refuse it")
        try PublishingFolder(originRoot).revoke(name: "demo", version: "2.0.0")
        #expect(try PublishedManifest.read(path)?.manifest.packages.first?.version == "1.0.0")
        #expect(try PublishedManifest.read(path)?.manifest.schemaVersion == 2, "the revocation is kept")
    }
}
