import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Keys rotated in-band, as a publisher does it with pkgctl alone: devices bootstrapped with root 1
/// (`update --trusted-root`) follow two rotations of the content key and one of the timestamp key
/// through nginx, with no change on any device; one that was off meanwhile catches up in one run;
/// and a signing command given a key the root does not list is refused with the folder unchanged.
@Suite struct RootRotationTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let keys: String
    let origin: NginxOrigin
    static let devices = 3

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = try temp.makeDirectory("dest")
        keys = temp.path + "/keys"
        origin = try NginxOrigin(root: dest)
        try PkgctlProcess.keygen(["root", "content1", "content2", "content3", "online1", "online2"], in: keys)
    }

    func key(_ name: String) -> String { keys + "/" + name + ".key" }
    func pub(_ name: String) -> String { keys + "/" + name + ".pub" }

    @discardableResult
    func pkgctl(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> PkgctlProcess.Result {
        let result = try PkgctlProcess.run(arguments)
        #expect(result.status == 0, "\(arguments.prefix(2)): \(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    /// Packs `version` signed by `content`, timestamps it with `online`, publishes.
    func release(_ version: String, content: String, online: String) throws {
        try pkgctl(["pack", BundleFixtures.demoSource("1.1.0"), "--name", "demo", "--version", version, "--out", out,
                    "--route", "www.example.com/app", "--sign", key(content)])
        try pkgctl(["timestamp", out, "--key", key(online)])
        try pkgctl(["publish", out, dest])
    }

    /// Makes root `version` after the newest in OUT with `roles`, signs it with the root key, adds it.
    func rotate(to version: Int, _ roles: [String]) throws {
        let file = temp.path + "/root-\(version).json"
        try pkgctl(["root", "rotate", out + "/roots/\(version - 1).json", "--out", file] + roles)
        try pkgctl(["root", "sign", file, "--key", key("root"), "--previous", out + "/roots/\(version - 1).json"])
        try pkgctl(["root", "add", file, out])
    }

    func poll(_ device: Int) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", temp.path + "/device\(device)", "--manifest", origin.baseURL + "/manifest.json",
                               "--trusted-root", temp.path + "/root-1.json", "--no-report"])
    }

    func active(_ device: Int) -> String? { PackageStore(root: temp.path + "/device\(device)").activeVersion(of: "demo") }

    @Test func aFleetFollowsTwoContentRotationsAndATimestampRotationWithNoChangeOnAnyDevice() throws {
        let root1 = temp.path + "/root-1.json"
        try pkgctl(["root", "init", root1, "--root-key", pub("root"), "--content-key", pub("content1"),
                    "--timestamp-key", pub("online1")])
        try pkgctl(["root", "sign", root1, "--key", key("root")])
        try FileSystem.makeDirectories(out)
        try pkgctl(["root", "add", root1, out])
        try release("1.0.0", content: "content1", online: "online1")
        for device in 0..<Self.devices { #expect(try poll(device).status == 0) }
        #expect((0..<Self.devices).allSatisfy { active($0) == "1.0.0" })
        // Device 2 is off from here on.
        let awake = 0..<2

        // The content key is rotated: root 2 lists content2 alone; content1 can no longer sign here.
        try rotate(to: 2, ["--content-key", pub("content2")])
        let before = try Self.files(out)
        let refused = try PkgctlProcess.run(["rollout", out, "demo", "50", "--sign", key("content1")])
        #expect(refused.status == 1 && refused.stderr.contains("root 2 takes 1 of its content keys"), "\(refused.stderr)")
        #expect(refused.stderr.filter { $0 == "\n" }.count == 1)
        #expect(try Self.files(out) == before, "a refused command changes nothing in the folder")
        try release("1.1.0", content: "content2", online: "online1")
        for device in awake { #expect(try poll(device).status == 0) }
        #expect(awake.allSatisfy { active($0) == "1.1.0" })

        // The timestamp key, then the content key again.
        try rotate(to: 3, ["--timestamp-key", pub("online2")])
        try release("1.2.0", content: "content2", online: "online2")
        for device in awake { #expect(try poll(device).status == 0) }
        #expect(awake.allSatisfy { active($0) == "1.2.0" })
        try rotate(to: 4, ["--content-key", pub("content3")])
        try release("1.3.0", content: "content3", online: "online2")
        for device in awake { #expect(try poll(device).status == 0) }
        #expect(awake.allSatisfy { active($0) == "1.3.0" })

        // The device that was off catches up in one run, walking roots 2, 3 and 4.
        let caughtUp = try poll(2)
        #expect(caughtUp.status == 0, "\(caughtUp.stderr)")
        #expect(active(2) == "1.3.0")
        let kept = try TrustedRoot(selfSigned: try FileSystem.read(temp.path + "/device2/state/root.json") ?? [], source: "kept")
        #expect(kept.version == 4)
    }

    /// Every file under `folder` and its bytes.
    static func files(_ folder: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let path = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: folder + "/" + path) { files[path] = data }
        }
        return files
    }
}
