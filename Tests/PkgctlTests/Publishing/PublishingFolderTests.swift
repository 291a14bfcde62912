import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The publishing folder's owner as a user meets it: what an interrupted run left blocks nothing
/// and is removed by the next one, a version sorts forward unless the publisher says otherwise,
/// every command says the same thing of a folder with no manifest, and publish copies a file of
/// any size in bounded memory.
@Suite struct PublishingFolderTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
    }

    /// Packs `source` (default: the demo of that version) as demo `version` into `out`.
    @discardableResult
    func pack(_ version: String, source: String? = nil, _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["pack", source ?? BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", version,
                               "--out", out, "--route", "www.example.com/app"] + extra)
    }

    /// The zip of 1.1.0 an interrupted `pack` leaves (written and renamed, the manifest not yet):
    /// the bytes of another tree under its content name.
    func leaveInterruptedPackZip(version: String) throws -> String {
        let elsewhere = temp.path + "/elsewhere"
        try PublishingFolder(elsewhere).pack(source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: version)
        let zip = try #require(try PublishedManifest.read(elsewhere + "/manifest.json")?.manifest.packages.first?.url)
        try FileManager.default.copyItem(atPath: elsewhere + "/" + zip, toPath: out + "/" + zip)
        return zip
    }

    @Test func aZipNoManifestNamedDoesNotBlockItsVersion() throws {
        #expect(try pack("1.0.0").status == 0)
        let left = try leaveInterruptedPackZip(version: "1.1.0")
        let packed = try pack("1.1.0", source: BundleFixtures.demoSource("1.0.0"))
        #expect(packed.status == 0, "no manifest ever named \(left), so no device can run it: \(packed.stderr)")
        // Once a manifest named it, the version's bytes are fixed, whatever manifest.json says now.
        unlink(out + "/manifest.json")
        let error = #expect(throws: PkgError.self) {
            try PublishingFolder(out).pack(source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.1.0")
        }
        #expect(error?.code == .invalidArgument && error?.message.contains("was published before with other bytes") == true,
                "\(String(describing: error))")
    }

    @Test func theNextExclusiveHolderRemovesWhatAKilledRunLeftWhateverItsProcessID() throws {
        #expect(try pack("1.0.0").status == 0)
        let dest = temp.path + "/dest"
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        // What a killed publish (process 6338) and a killed pack --precompress left.
        let object = try #require(FileManager.default.subpaths(atPath: dest + "/objects")?.first { $0.count > 3 })
        let debris = [dest + "/objects/" + PathName.parent(object) + "/.tmp-6338-" + PathName.lastComponent(object),
                      dest + "/.tmp-6338-manifest.json", out + "/zips/.tmp-6338-demo-1.1.0.zip"]
        for path in debris { try Data("partial".utf8).write(to: URL(fileURLWithPath: path)) }
        try FileManager.default.createDirectory(atPath: out + "/.precompress.Ab12Cd/css", withIntermediateDirectories: true)

        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        #expect(PublishingFolderCheck.temporaries(in: dest).isEmpty, "the next publish removed its destination's debris")
        #expect(PublishingFolderCheck.temporaries(in: out).count == 2, "a shared holder (publish's source) removes nothing")
        #expect(try PkgctlProcess.run(["prune", out]).status == 0)
        #expect(PublishingFolderCheck.temporaries(in: out).isEmpty, "prune removed the rest, however young")
    }

    @Test func aVersionBelowTheCurrentOneIsRefusedUnlessAllowedAndThenStillGetsADelta() throws {
        #expect(try pack("3.18.0", source: BundleFixtures.demoSource("1.0.0")).status == 0)
        let refused = try pack("3.18.0-hotfix1", source: BundleFixtures.demoSource("1.1.0"))
        #expect(refused.status == 1 && refused.stderr.filter { $0 == "\n" }.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("demo 3.18.0-hotfix1 sorts below 3.18.0")
                && refused.stderr.contains("(3.18.1 or 3.18.0.1 would; 3.18.0-hotfix.1 would not)"), "\(refused.stderr)")
        let error = #expect(throws: PkgError.self) {
            try PublishingFolder(out).pack(source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "3.18.0-hotfix1")
        }
        #expect(error?.code == .downgrade)

        let allowed = try pack("3.18.0-hotfix1", source: BundleFixtures.demoSource("1.1.0"), ["--allow-downgrade"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.contains("demo 3.18.0-hotfix1 replaces 3.18.0, which sorts above it (--allow-downgrade)"),
                "\(allowed.stdout)")
        let entry = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first)
        #expect(entry.version == "3.18.0-hotfix1")
        #expect(entry.deltas.map(\.from) == ["3.18.0"], "a delta from the release it replaces, which sorts above it")
        #expect(try pack("3.18.1", source: BundleFixtures.demoSource("1.0.0")).status == 0, "forward again, no flag")
    }

    @Test func everyCommandSaysTheSameOfAFolderWithNoManifest() throws {
        let empty = temp.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let expected = "pkgctl: no manifest.json in \(empty): pkgctl pack writes it\n"
        try #require(PkgctlProcess.run(["keygen", "--out", temp.path + "/keys"]).status == 0)
        let key = temp.path + "/keys/release.key"
        for arguments in [["publish", empty, temp.path + "/dest"], ["prune", empty], ["rollout", empty, "demo", "50"],
                          ["revoke", empty, "demo", "1.0.0"], ["timestamp", empty, "--key", key],
                          ["sign", empty + "/manifest.json", "--key", key], ["promote", empty, out, "demo", "1.0.0"]] {
            let result = try PkgctlProcess.run(arguments)
            #expect(result.status == 1 && result.stderr == expected, "\(arguments[0]): \(result.stderr)")
        }
        let error = #expect(throws: PkgError.self) { try PublishingFolder(empty).revoke(name: "demo", version: "1.0.0") }
        #expect(error?.code == .noManifest)
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/dest"), "a refused publish makes no destination")
    }

    @Test func publishMakesOnlyTheLastFolderOfItsDestination() throws {
        #expect(try pack("1.0.0").status == 0)
        let typo = temp.path + "/h/nonexistent/deeper/www"
        let refused = try PkgctlProcess.run(["publish", out, typo])
        #expect(refused.status == 1 && refused.stderr == "pkgctl: \(temp.path)/h/nonexistent/deeper does not exist: publish "
                + "makes only the last folder of \(typo), as cp and rsync do; check the path, or make its parent first\n",
                "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/h"), "nothing made on the way")
        #expect(try PkgctlProcess.run(["publish", out, temp.path + "/www"]).status == 0, "the last folder is made")
    }

    @Test func publishTrustsContentNamesAndSizesUnlessAskedToVerify() throws {
        #expect(try pack("1.0.0").status == 0)
        let dest = temp.path + "/dest"
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        let zip = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first?.url)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dest + "/" + zip))
        bytes[bytes.count / 2] ^= 0xff  // same size, other bytes: what a bad disk or a hand does
        try bytes.write(to: URL(fileURLWithPath: dest + "/" + zip))
        #expect(try PkgctlProcess.run(["publish", out, dest]).stdout.hasPrefix("copied 0 files"), "trusted by name and size")
        let verified = try PkgctlProcess.run(["publish", out, dest, "--verify"])
        #expect(verified.status == 1 && verified.stderr.contains("\(dest)/\(zip): other bytes than its name says"),
                "\(verified.stderr)")
    }

    @Test func publishCopiesALargeZipInBoundedMemory() throws {
        let source = temp.path + "/large"
        try BundleFixtures.makeTree(at: source, files: 1, size: 96 << 20)
        #expect(try PkgctlProcess.run(["pack", source, "--name", "large", "--version", "1.0.0", "--out", out,
                                       "--delta-from", "0"]).status == 0)
        let (result, peakKB) = try PkgctlProcess.runMeasuringMemory(["publish", out, temp.path + "/dest"])
        #expect(result.status == 0, "\(result.stderr)")
        if let peakKB {
            #expect(peakKB < 48 << 10, "publish of a 96 MiB zip and object peaked at \(peakKB) KiB")
        } else {
            print("skipped: the peak-memory bound: \(UninstrumentedBuild.absence)")
        }
    }
}
