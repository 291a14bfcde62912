import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What a publisher meets behind a CDN: names that never change meaning, a version never
/// re-packed with other bytes, `publish` in a safe order, a manifest written by an earlier pkgctl.
@Suite struct PublishCommandTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let keys: String

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = temp.path + "/dest"
        keys = temp.path + "/keys"
    }

    /// Packs `source` (default: the demo of that version) as demo `version` into `out`.
    @discardableResult
    func pack(_ version: String, source: String? = nil, _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["pack", source ?? BundleFixtures.demoSource(version), "--name", "demo", "--version", version,
                               "--out", out, "--route", "www.example.com/app"] + extra)
    }

    /// A copy of the demo 1.0.0 tree with `marker` appended to its page: other bytes, same files.
    func changedSource(_ marker: String) throws -> String {
        let source = temp.path + "/src-" + marker
        try? FileManager.default.removeItem(atPath: source)
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.0.0"), toPath: source)
        let page = try FileHandle(forWritingTo: URL(fileURLWithPath: source + "/index.html"))
        try page.seekToEnd()
        try page.write(contentsOf: Data("<!-- \(marker) -->\n".utf8))
        try page.close()
        return source
    }

    /// Every file under `directory` (relative path → bytes).
    static func tree(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [:] }
        for case let path as String in walker {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[path] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + path))
            }
        }
        return files
    }

    static func sha256(_ data: Data) -> String { SHA256.hash(data: data).hexString }

    func expectOneLineError(_ result: PkgctlProcess.Result, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("pkgctl: ") && result.stderr.contains(text), "\(result.stderr)",
                sourceLocation: sourceLocation)
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func everyFileButTwoIsNamedByItsBytesAndNeverRewritten() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", keys]).status == 0)
        #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", "online"]).status == 0)
        let signing = ["--sign", keys + "/release.key"]
        #expect(try pack("1.0.0", signing + ["--precompress"]).status == 0)
        #expect(try pack("1.1.0", signing + ["--precompress"]).status == 0)
        #expect(try PkgctlProcess.run(["timestamp", out, "--key", keys + "/online.key"]).status == 0)
        let before = try Self.tree(out)
        #expect(before.keys.contains { $0.hasPrefix("deltas/") } && before.keys.contains { $0.hasPrefix("manifests/") })
        #expect(before.keys.filter { $0.hasPrefix("snapshots/") }.count == 2)
        for (path, bytes) in before where path != "manifest.json" && path != "timestamp.json" {
            let named = PublishedLayout.namedDigest(of: path)
            if path.hasPrefix("snapshots/") {
                // A snapshot is named by its signed payload: the name timestamp.json gives it.
                let payload = try SignedEnvelope.parse(Array(bytes), source: path).payloadBytes
                #expect(named == SHA256.hash(data: payload).hexString, "\(path) is named by its payload")
                #expect(before[PublishedLayout.manifestArchive(sha256: Self.sha256(bytes))] == bytes, "\(path) is archived")
            } else {
                #expect(named == Self.sha256(bytes), "\(path) is named by its bytes")
            }
        }
        #expect(try pack("1.2.0", source: try changedSource("1.2.0"), signing).status == 0)
        let after = try Self.tree(out)
        for (path, bytes) in before where path != "manifest.json" && path != "timestamp.json" {
            #expect(after[path] == bytes, "\(path) was never rewritten")
        }
        // The manifest names only content-named files, and devices install from it.
        let manifest = try #require(try PublishedManifest.read(out + "/manifest.json")).manifest
        let entry = try #require(manifest.packages.first)
        #expect(entry.url.hasPrefix("zips/demo-1.2.0.") && PublishedLayout.namedDigest(of: entry.url) == entry.sha256)
        #expect(entry.index.map { PublishedLayout.namedDigest(of: $0.url) == $0.sha256 } == true)
        #expect(entry.deltas.allSatisfy { PublishedLayout.namedDigest(of: $0.url) == $0.sha256 } && entry.deltas.count == 2)
    }

    @Test func aPublishedVersionIsNeverRepackedWithOtherBytes() throws {
        #expect(try pack("1.0.0").status == 0)
        #expect(try pack("1.0.0").status == 0, "the same tree packs to the same bytes: nothing changes")
        let published = try Self.tree(out)
        let other = try changedSource("hotfix")
        let refused = try pack("1.0.0", source: other)
        expectOneLineError(refused, "demo 1.0.0 is already published with other bytes")
        #expect(refused.stderr.contains("publish the change as a new version") && !refused.stderr.contains("--force"))
        expectOneLineError(try pack("1.0.0", source: other, ["--force"]),
                           "force replaces only a release no device can have yet")
        #expect(try Self.tree(out) == published, "nothing written, no temporary file left")

        // A release at 0 % without pins is replaced with force, and only then.
        #expect(try pack("1.1.0", ["--rollout", "0"]).status == 0)
        let unreleased = try pack("1.1.0", source: other, ["--rollout", "0"])
        expectOneLineError(unreleased, "demo 1.1.0 is already published with other bytes")
        #expect(unreleased.stderr.contains("(pass --force)"))
        #expect(try pack("1.1.0", source: other, ["--rollout", "0", "--force"]).status == 0)
        let entry = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first)
        #expect(entry.version == "1.1.0" && entry.rollout?.previous?.version == "1.0.0")
        #expect(entry.sha256 == Self.sha256(try Data(contentsOf: URL(fileURLWithPath: out + "/" + entry.url))))
        // The rollout's previous is published too, and so is a release with a pinned device.
        expectOneLineError(try pack("1.0.0", source: try changedSource("again"), ["--rollout", "0", "--force"]),
                           "demo 1.0.0 is already published with other bytes")
        // A release that reached devices is not made replaceable by lowering it to 0 % with force.
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "10"]).status == 0)
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "0", "--force"]).status == 0)
        expectOneLineError(try pack("1.1.0", source: try changedSource("lowered"), ["--rollout", "0", "--force"]),
                           "force replaces only a release no device can have yet")
        let devices = try temp.write(Array("qa-phone\n".utf8), to: "devices.txt")
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "--devices", devices]).status == 0)
        expectOneLineError(try pack("1.1.0", source: try changedSource("pinned"), ["--rollout", "0", "--force"]),
                           "force replaces only a release no device can have yet")
    }

    @Test func aManifestWithVersionNamedURLsStillInstallsAndPacksOn() throws {
        // The layout of an earlier pkgctl: OUT/demo-1.0.0.zip and OUT/index/demo-1.0.0.json.
        #expect(try pack("1.0.0", ["--delta-from", "0"]).status == 0)
        var manifest = try #require(try PublishedManifest.read(out + "/manifest.json")).manifest
        try FileManager.default.moveItem(atPath: out + "/" + manifest.packages[0].url, toPath: out + "/demo-1.0.0.zip")
        let index = try #require(manifest.packages[0].index)
        try FileManager.default.moveItem(atPath: out + "/" + index.url, toPath: out + "/index/demo-1.0.0.json")
        manifest.packages[0].url = "demo-1.0.0.zip"
        manifest.packages[0].index?.url = "index/demo-1.0.0.json"
        try (manifest.encoded() + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: out + "/manifest.json"))

        let root = temp.path + "/store"
        let update = ["update", "--root", root, "--manifest", "file://" + out + "/manifest.json", "--no-report"]
        let first = try PkgctlProcess.run(update)
        #expect(first.status == 0 && first.stdout == "demo: installed 1.0.0\n", "\(first.stderr)")
        let next = try pack("1.1.0")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("from 1.0.0"), "a delta from the version-named index: \(next.stdout)")
        let second = try PkgctlProcess.run(update)
        #expect(second.status == 0 && second.stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n", "\(second.stdout)\(second.stderr)")

        // A manifest that pack did not archive (edited by hand, or by an earlier pkgctl) is published too.
        var edited = try #require(try PublishedManifest.read(out + "/manifest.json")).manifest
        edited.packages[0].routes = ["www.example.com/docs"]
        let bytes = try edited.encoded() + [UInt8(ascii: "\n")]
        try Data(bytes).write(to: URL(fileURLWithPath: out + "/manifest.json"))
        let published = try PkgctlProcess.run(["publish", out, dest])
        #expect(published.status == 0, "\(published.stderr)")
        #expect(FileManager.default.contents(atPath: dest + "/" + PublishedLayout.manifestArchive(sha256: Self.sha256(Data(bytes))))
                == Data(bytes), "its archive is written from the manifest itself")
    }

    @Test func publishCopiesContentNamedFilesFirstAndTheManifestLast() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", keys]).status == 0)
        #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", "online"]).status == 0)
        #expect(try pack("1.0.0", ["--sign", keys + "/release.key"]).status == 0)
        #expect(try pack("1.1.0", ["--sign", keys + "/release.key"]).status == 0)
        #expect(try PkgctlProcess.run(["timestamp", out, "--key", keys + "/online.key"]).status == 0)

        let dryRun = try PkgctlProcess.run(["publish", out, dest, "--dry-run"])
        #expect(dryRun.status == 0 && dryRun.stdout.hasPrefix("would copy "), "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dest), "a dry run writes nothing")

        // The order, as the kernel saw it: every rename into place, the two mutable files last.
        let trace = temp.path + "/renames"
        let result = try runCommand("/usr/bin/strace", ["-f", "-qq", "-e", "trace=rename,renameat,renameat2", "-o", trace,
                                                        PkgctlProcess.executable, "publish", out, dest])
        #expect(result.hasPrefix("copied ") && result.contains("timestamp.json then manifest.json (sequence 2) last"),
                "\(result)")
        let targets = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
            guard line.contains("= 0"), let last = line.split(separator: "\"").dropLast().last else { return nil }
            return String(last)
        }
        let relative = targets.map { String($0.dropFirst(dest.count + 1)) }
        #expect(relative.suffix(2) == ["timestamp.json", "manifest.json"], "\(relative)")
        #expect(relative.dropLast(2).allSatisfy { PublishedLayout.namedDigest(of: $0) != nil }, "\(relative)")
        let copied = try Self.tree(dest), source = try Self.tree(out)
        #expect(copied.allSatisfy { source[$0.key] == $0.value }, "byte for byte")
        let references = try ManifestReferences(manifest: Array(source["manifest.json"]!), in: out)
        #expect(Set(copied.keys) == Set(references.files.map(\.path) + ["manifest.json", "timestamp.json"]),
                "what the manifest names, and nothing of 1.0.0's that it does not")

        let again = try PkgctlProcess.run(["publish", out, dest])
        #expect(again.stdout.hasPrefix("copied 0 files (0 bytes), skipped \(copied.count - 2) files already there"),
                "\(again.stdout)")
        #expect(again.stdout.contains("manifest.json (sequence 2) already there"))

        let root = temp.path + "/store"
        let update = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://" + dest + "/manifest.json",
                                            "--trusted-key", keys + "/release.pub", "--timestamp-key", keys + "/online.pub",
                                            "--no-report"])
        #expect(update.status == 0 && update.stdout == "demo: installed 1.1.0\n", "\(update.stderr)")
    }

    @Test func publishRefusesInOneLineAndLeavesThePublishedReleaseServing() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", keys]).status == 0)
        #expect(try pack("1.0.0", ["--sign", keys + "/release.key"]).status == 0)
        #expect(try PkgctlProcess.run(["publish", out, dest]).status == 0)
        #expect(try pack("1.1.0", ["--sign", keys + "/release.key"]).status == 0)
        let served = try Self.tree(dest)
        let entry = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first)
        func expectUnchanged(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let now = try Self.tree(dest)
            #expect(now["manifest.json"] == served["manifest.json"], "\(what): the old manifest keeps serving",
                    sourceLocation: sourceLocation)
            #expect(!now.keys.contains { $0.contains(".tmp-") }, "\(what): no temporary file left: \(now.keys.sorted())",
                    sourceLocation: sourceLocation)
        }

        // A file under its content name with other bytes (a cut upload by another tool).
        try FileManager.default.createDirectory(atPath: dest + "/zips", withIntermediateDirectories: true)
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: dest + "/" + entry.url))
        expectOneLineError(try PkgctlProcess.run(["publish", out, dest]), "\(dest)/\(entry.url): other bytes than its name says")
        try expectUnchanged("wrong bytes")
        try FileManager.default.removeItem(atPath: dest + "/" + entry.url)

        // A symlink in OUT_DIR, and a manifest URL that leaves the folder.
        let zip = out + "/" + entry.url
        try FileManager.default.moveItem(atPath: zip, toPath: temp.path + "/moved.zip")
        try FileManager.default.createSymbolicLink(atPath: zip, withDestinationPath: temp.path + "/moved.zip")
        expectOneLineError(try PkgctlProcess.run(["publish", out, dest]), "\(zip): a symlink; publishing copies regular files only")
        try expectUnchanged("symlink")
        try FileManager.default.removeItem(atPath: zip)
        try FileManager.default.moveItem(atPath: temp.path + "/moved.zip", toPath: zip)
        let signed = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        var hostile = try #require(try PublishedManifest.read(out + "/manifest.json")).manifest
        hostile.packages[0].url = "../../etc/passwd"
        try (hostile.encoded() + [UInt8(ascii: "\n")]).write(to: URL(fileURLWithPath: out + "/manifest.json"))
        expectOneLineError(try PkgctlProcess.run(["publish", out, dest]),
                           "url '../../etc/passwd' does not name a file of the publishing folder")
        try expectUnchanged("../ url")
        expectOneLineError(try PkgctlProcess.run(["publish", out, temp.path + "/fresh"]), "does not name a file")
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/fresh"), "a refused first publish leaves no folder")
        try signed.write(to: URL(fileURLWithPath: out + "/manifest.json"))

        // Another publisher signed a newer manifest into DEST_DIR meanwhile.
        let other = temp.path + "/other"
        try FileManager.default.copyItem(atPath: dest, toPath: other)
        #expect(try PkgctlProcess.run(["sign", other + "/manifest.json", "--key", keys + "/release.key"]).status == 0)
        #expect(try PkgctlProcess.run(["sign", other + "/manifest.json", "--key", keys + "/release.key"]).status == 0)
        let racing = try PkgctlProcess.run(["publish", out, other])
        expectOneLineError(racing, "\(other)/manifest.json has sequence 3, higher than \(out)/manifest.json (2)")

        // A DEST_DIR that cannot be written, and one that fills up, on file systems of their own.
        let big = temp.path + "/big"
        try BundleFixtures.makeTree(at: big, files: 4, size: 50_000)
        let packed = try pack("2.0.0", source: big, ["--sign", keys + "/release.key"])
        #expect(packed.status == 0, "\(packed.stderr)")
        let readOnly = temp.path + "/read-only", full = temp.path + "/full"
        for folder in [readOnly, full] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let script = """
            exec 2>&1
            set -e
            mount -t tmpfs -o size=64k tmpfs "$FULL"
            cp -a "$DEST"/. "$FULL"/
            mount -t tmpfs -o ro tmpfs "$READ_ONLY"
            set +e
            "$PKGCTL" publish "$OUT" "$READ_ONLY"; echo "exit $?"
            "$PKGCTL" publish "$OUT" "$FULL"; echo "exit $?"
            cmp -s "$DEST/manifest.json" "$FULL/manifest.json" && echo "old manifest kept"
            find "$FULL" -name '.tmp-*' | grep -q . && echo "debris" || echo "no debris"
            """
        let unshare = getuid() == 0 ? ["--mount"] : ["--map-root-user", "--mount"]
        let environment = ["FULL=" + full, "READ_ONLY=" + readOnly, "DEST=" + dest, "OUT=" + out,
                           "PKGCTL=" + PkgctlProcess.executable]
        let outcome = try runCommand("/usr/bin/env", environment + ["/usr/bin/unshare"] + unshare + ["/bin/sh", "-c", script])
        let lines = outcome.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(outcome)")
        #expect(lines.first?.hasPrefix("pkgctl: write into \(readOnly): ") == true, "\(outcome)")
        #expect(lines.dropFirst().first?.hasPrefix("exit 1") == true)
        #expect(lines.dropFirst(2).first?.contains("No space left on device") == true, "\(outcome)")
        #expect(Array(lines.suffix(3)) == ["exit 1", "old manifest kept", "no debris"], "\(outcome)")
    }
}
