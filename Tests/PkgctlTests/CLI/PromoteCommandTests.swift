import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Channels: a release tested on staging goes to production byte for byte, never rebuilt, signed
/// with production's keys, with deltas from production's own earlier versions.
@Suite struct PromoteCommandTests {
    let temp: TemporaryDirectory
    let staging: String
    let production: String
    let keys: String

    init() throws {
        temp = try TemporaryDirectory()
        staging = temp.path + "/staging"
        production = temp.path + "/production"
        keys = temp.path + "/keys"
        for name in ["staging", "production"] {
            #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", name]).status == 0)
        }
    }

    func pack(_ version: String, into out: String, key: String, source: String? = nil) throws {
        let packed = try PkgctlProcess.run(["pack", source ?? BundleFixtures.demoSource(version), "--name", "demo",
                                            "--version", version, "--out", out, "--route", "www.example.com/app",
                                            "--sign", keys + "/" + key + ".key"])
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    func update(_ device: String, channel: String, key: String) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", temp.path + "/" + device, "--manifest", "file://" + channel + "/manifest.json",
                               "--trusted-key", keys + "/" + key + ".pub", "--no-report"])
    }

    @Test func aStagedReleaseReachesProductionByteForByte() throws {
        try pack("1.0.0", into: production, key: "production")
        let productionDevice = try update("production-device", channel: production, key: "production")
        #expect(productionDevice.status == 0, "\(productionDevice.stderr)")
        try pack("1.1.0", into: staging, key: "staging")
        #expect(try update("staging-device", channel: staging, key: "staging").status == 0)

        let promoted = try PkgctlProcess.run(["promote", staging, production, "demo", "1.1.0", "--rollout", "100",
                                              "--sign", keys + "/production.key"])
        #expect(promoted.status == 0, "\(promoted.stderr)")
        let tested = try #require(try PublishedManifest.read(staging + "/manifest.json")?.manifest.packages.first)
        let released = try #require(try PublishedManifest.read(production + "/manifest.json")).manifest
        let entry = try #require(released.packages.first)
        #expect(entry.sha256 == tested.sha256 && entry.size == tested.size && entry.index?.sha256 == tested.index?.sha256)
        #expect(try Data(contentsOf: URL(fileURLWithPath: production + "/" + entry.url))
                == Data(contentsOf: URL(fileURLWithPath: staging + "/" + tested.url)), "the zip, byte for byte")
        #expect(entry.deltas.map(\.from) == ["1.0.0"], "a delta from production's own 1.0.0 (staging never had it)")
        #expect(promoted.stdout.contains("demo 1.1.0 promoted from \(staging) to \(production)"), "\(promoted.stdout)")

        // Production's devices accept only production's key, and update by the delta to the staged bytes.
        #expect(try update("stray", channel: production, key: "staging").status == 1, "signed with production's key alone")
        let upgraded = try update("production-device", channel: production, key: "production")
        #expect(upgraded.stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n", "\(upgraded.stdout)\(upgraded.stderr)")
        let ran = temp.path + "/staging-device/packages/demo/1.1.0", runs = temp.path + "/production-device/packages/demo/1.1.0"
        #expect(try PublishCommandTests.tree(ran) == PublishCommandTests.tree(runs), "production runs the tree staging tested")

        // A version production already names is never replaced with other bytes, nor a missing one invented.
        let source = temp.path + "/other"
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.0.0"), toPath: source)
        try Data("other".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        try pack("1.0.0", into: temp.path + "/other-staging", key: "staging", source: source)
        let refused = try PkgctlProcess.run(["promote", temp.path + "/other-staging", production, "demo", "1.0.0",
                                             "--sign", keys + "/production.key"])
        #expect(refused.status == 1 && refused.stderr.contains("demo 1.0.0 was published before with other bytes"),
                "\(refused.stderr)")
        // A release whose zip is elsewhere cannot be copied byte for byte: refused, not half-promoted.
        let elsewhere = temp.path + "/elsewhere"
        try pack("1.2.0", into: elsewhere, key: "staging", source: source)
        var manifest = try #require(try PublishedManifest.read(elsewhere + "/manifest.json")).manifest
        manifest.packages[0].url = "https://cdn.example.com/demo-1.2.0.zip"
        try (manifest.encoded() + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: elsewhere + "/manifest.json"))
        let before = try Data(contentsOf: URL(fileURLWithPath: production + "/manifest.json"))
        let absolute = try PkgctlProcess.run(["promote", elsewhere, production, "demo", "1.2.0", "--sign", keys + "/production.key"])
        #expect(absolute.status == 1 && absolute.stderr.contains("its zip or index is at a URL with a scheme"), "\(absolute.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: production + "/manifest.json")) == before)
        let missing = try PkgctlProcess.run(["promote", staging, production, "demo", "9.9.9", "--sign", keys + "/production.key"])
        #expect(missing.status == 1 && missing.stderr == "pkgctl: \(staging)/manifest.json names no release demo 9.9.9\n",
                "\(missing.stderr)")
    }
}
