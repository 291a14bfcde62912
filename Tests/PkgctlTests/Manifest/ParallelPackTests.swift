import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pack` runs the zip beside the objects and the tree deltas of several bases at once: what it
/// writes must not depend on how many threads it had.
@Suite struct ParallelPackTests {
    /// Three releases (the third with deltas from both earlier ones, all with `.br` and `.gz`
    /// siblings) published on one thread and on two and three give the same files with the same
    /// bytes: zips, objects, indexes, deltas and manifests.
    @Test func oneTwoOrThreeThreadsPublishTheSameBytes() throws {
        let sources = try TemporaryDirectory()
        let third = sources.path("1.2.0")
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.1.0"), toPath: third)
        try BundleFixtures.makeTree(at: third + "/assets", files: 40, size: 3_000, seed: 7)
        try sources.write(Array(String(repeating: "console.log('release 1.2.0');\n", count: 200).utf8),
                              to: "1.2.0/app.js")
        let releases = [("1.0.0", BundleFixtures.demoSource("1.0.0")), ("1.1.0", BundleFixtures.demoSource("1.1.0")),
                        ("1.2.0", third)]

        var trees: [[String: Data]] = []
        for workers in [1, 2, 3] {
            let origin = try TemporaryDirectory()
            var publisher = PublishingFolder(origin.path)
            publisher.workers = workers
            var entries: [ManifestEntry] = []
            for (version, source) in releases {
                entries.append(try publisher.pack(source: source, name: "demo", version: version, options: .init(routes: ["www.example.com/app"], precompress: true,
                                                     deltaFrom: 2)))
            }
            #expect(entries.map(\.deltas.count) == [0, 1, 2])
            trees.append(try Self.files(in: origin.path))
        }
        #expect(trees[0].keys.contains { $0.hasPrefix("deltas/") })
        let index = try #require(trees[0].first { $0.key.hasPrefix("index/demo-1.2.0.") }?.value)
        #expect(String(decoding: index, as: UTF8.self).contains("\"app.js.br\""))
        for tree in trees.dropFirst() {
            #expect(tree.keys.sorted() == trees[0].keys.sorted())
            for (path, bytes) in trees[0] { #expect(tree[path] == bytes, "\(path) differs") }
        }
    }

    /// Every file under `root` but the lock, by relative path.
    static func files(in root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory),
                  !isDirectory.boolValue else { continue }
            files[path] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + path))
        }
        return files
    }
}
