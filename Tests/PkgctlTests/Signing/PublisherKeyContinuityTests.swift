import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A publisher cannot strand the fleet with the wrong key: every signing command refuses keys
/// that include none of those that signed the document it replaces (issue 46's check "against the
/// keys that signed the manifest now in the folder"), and changes nothing; a rotation that adds
/// the new key beside the old, then drops the old, goes through.
@Suite struct PublisherKeyContinuityTests {
    let temp: TemporaryDirectory
    let out: String
    let keys: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
        keys = temp.path + "/keys"
        try PkgctlProcess.keygen(["release", "staging", "new", "online", "other"], in: keys)
    }

    private func key(_ name: String) -> String { keys + "/" + name + ".key" }

    /// The folder's files and their bytes: what a refused command must leave as it was.
    private func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: out)
        while let path = enumerator?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: out + "/" + path) { files[path] = data }
        }
        return files
    }

    @Test func theStagingKeyCannotSignProductionAndNothingChanges() throws {
        try BundleFixtures.packDemo("1.0.0", into: out, ["--sign", key("release")])
        try BundleFixtures.packDemo("1.1.0", into: out, from: "1.0.0", ["--sign", key("release"), "--rollout", "10"])
        let before = try snapshot()
        let releaseID = try SigningKey(file: key("release")).publicKey.id.prefix(16)
        let stagingID = try SigningKey(file: key("staging")).publicKey.id.prefix(16)
        for command in [["rollout", out, "demo", "50", "--sign", key("staging")],
                        ["revoke", out, "demo", "1.1.0", "--sign", key("staging")],
                        ["sign", out + "/manifest.json", "--key", key("staging")],
                        ["pack", BundleFixtures.demoSource("1.1.0"), "--name", "demo", "--version", "1.2.0", "--out", out,
                         "--route", "www.example.com/app", "--sign", key("staging")]] {
            let refused = try PkgctlProcess.run(command)
            #expect(refused.status == 1, "\(command[0]): \(refused.stderr)")
            #expect(refused.stderr == "pkgctl: manifest \(out)/manifest.json is signed by \(releaseID), and the keys given "
                    + "(\(stagingID)) include none of them: devices that trust those would refuse it on every poll; sign with "
                    + "\(releaseID) too (a new key is added by signing with both, the old one dropped once devices trust the new)\n",
                    "\(command[0])")
            #expect(try snapshot() == before, "\(command[0]) changed the folder")
        }
        // Which refusal, by its code.
        let error = #expect(throws: PkgError.self) {
            try PublishingFolder(out).setRollout(name: "demo", percent: 50, signer: ManifestSigner(keys: [try SigningKey(file: key("staging"))]))
        }
        #expect(error?.code == .untrustedSigningKey)
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "50", "--sign", key("release")]).status == 0)
    }

    @Test func aRotationAddsTheNewKeyBesideTheOldThenDropsTheOld() throws {
        try BundleFixtures.packDemo("1.0.0", into: out, ["--sign", key("release")])
        #expect(try PkgctlProcess.run(["sign", out + "/manifest.json", "--key", key("release"), "--key", key("new")]).status == 0)
        #expect(try PkgctlProcess.run(["sign", out + "/manifest.json", "--key", key("new")]).status == 0)
        let now = try #require(try PublishedManifest.read(out + "/manifest.json"))
        #expect(now.signerIDs == [try SigningKey(file: key("new")).publicKey.id])
        // The old key alone is refused now: the manifest it would replace is signed by the new one only.
        let old = try PkgctlProcess.run(["sign", out + "/manifest.json", "--key", key("release")])
        #expect(old.status == 1 && old.stderr.contains("include none of them"), "\(old.stderr)")
    }

    @Test func theTimestampKeepsItsKey() throws {
        try BundleFixtures.packDemo("1.0.0", into: out, ["--sign", key("release")])
        #expect(try PkgctlProcess.run(["timestamp", out, "--key", key("online")]).status == 0)
        let before = try snapshot()
        let refused = try PkgctlProcess.run(["timestamp", out, "--key", key("other")])
        #expect(refused.status == 1 && refused.stderr.contains("timestamp \(out)/timestamp.json is signed by "), "\(refused.stderr)")
        #expect(try snapshot() == before)
        let error = #expect(throws: PkgError.self) {
            try TimestampSigner(keys: [try SigningKey(file: key("other"))]).write(in: PublishingFolder(out))
        }
        #expect(error?.code == .untrustedSigningKey)
        #expect(try PkgctlProcess.run(["timestamp", out, "--key", key("online"), "--key", key("other")]).status == 0)
    }
}
