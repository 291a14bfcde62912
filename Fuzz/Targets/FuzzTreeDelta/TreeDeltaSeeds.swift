import FuzzSupport
import FoundationEssentials
import PkgCore
import PkgPublishing

/// The committed seeds (`Fuzz/corpus/tree-delta`): deltas `TreeDeltaWriter` writes from
/// the fixture's version to trees a release makes of it, as files (`NAME.pkgdelta`) and in
/// the plain form (`NAME.plain`), written by running the target with `PKGCTL_FUZZ_WRITE_SEEDS=DIR`.
enum TreeDeltaSeeds {
    static func write(into directory: String) {
        let base = TreeDeltaFixture.files
        var targets: [String: [String: [UInt8]]] = [:]
        var renamed = base
        renamed["assets/Chunk0.e5f6a7b8.js"] = renamed.removeValue(forKey: "assets/Chunk0.a1b2c3d4.js").map { $0 + Array("// 2\n".utf8) }
        renamed["index.html"] = Array("<!doctype html><script src=assets/Chunk0.e5f6a7b8.js></script>".utf8)
        targets["renamed-chunk"] = renamed
        var added = base
        added["assets/Chunk2.Zz81_qA3.js"] = Array("export default 42;\n".utf8)
        added["new/empty.txt"] = []
        targets["added-files"] = added
        var removed = base
        removed["css/site.css"] = nil
        removed["empty.txt"] = nil
        targets["removed-files"] = removed
        var moved = base
        moved["styles/site.css"] = moved.removeValue(forKey: "css/site.css")
        targets["moved-file"] = moved
        targets["all-changed"] = base.mapValues { $0.reversed() }
        var grown = base
        grown["assets/Chunk1.Qx9_Zk2a.js"] = base["assets/Chunk1.Qx9_Zk2a.js"].map { $0 + $0 + $0 }
        targets["grown-file"] = grown
        FixtureFiles.makeDirectories(directory)
        for (name, files) in targets {
            var bySHA: [String: [UInt8]] = [:]
            for bytes in Array(base.values) + Array(files.values) { bySHA[TreeDeltaFixture.sha256(bytes)] = bytes }
            do {
                let delta = try TreeDeltaWriter().delta(from: try index(base), to: try index(files)) { sha in
                    guard let bytes = bySHA[sha] else { throw PkgError(.invalidArgument, "seed: no content \(sha)") }
                    return bytes
                }
                let file = delta ?? []
                FixtureFiles.write(file, to: directory + "/" + name + ".pkgdelta")
                // The plain form: the header's JSON, a NUL, the data frame.
                let parsed = try TreeDelta.parse(file, label: name)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                FixtureFiles.write(Array(try encoder.encode(parsed.header)) + [0] + Array(parsed.data),
                                   to: directory + "/" + name + ".plain")
            } catch {
                fatalError("seed \(name): \(error)")
            }
        }
    }

    private static func index(_ files: [String: [UInt8]]) throws -> PublishedFileIndex {
        let entries = files.keys.sorted().map { path in
            "{\"path\":\"\(path)\",\"sha256\":\"\(TreeDeltaFixture.sha256(files[path]!))\",\"size\":\(files[path]!.count),\"mode\":420}"
        }
        return try PublishedFileIndex.parse(Array("{\"files\":[\(entries.joined(separator: ","))]}".utf8), label: "seed",
                                            limits: ExtractionLimits())
    }
}
