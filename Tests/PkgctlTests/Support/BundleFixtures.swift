import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Source trees and published origins for update tests.
enum BundleFixtures {
    /// The repository checkout this test file belongs to.
    static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// `sample-bundles/demo/VERSION`.
    static func demoSource(_ version: String) -> String {
        repository + "/sample-bundles/demo/" + version
    }

    /// A copy at `path` of the sample demo 1.1.0, whose page also loads `script` when given (a file
    /// the package does not ship): a release that installs cleanly and fails at launch.
    static func copyDemo(to path: String, pageLoading script: String? = nil) throws {
        try FileManager.default.copyItem(atPath: demoSource("1.1.0"), toPath: path)
        guard let script else { return }
        let page = path + "/index.html"
        let html = try String(contentsOfFile: page, encoding: .utf8)
            .replacingOccurrences(of: "</head>", with: "<script src=\"\(script)\"></script></head>")
        try html.write(toFile: page, atomically: true, encoding: .utf8)
    }

    /// Publishes `sample-bundles/demo/SOURCE` (default: VERSION) as demo VERSION into `out` with
    /// the `pkgctl pack` command (route www.example.com/app, no tree deltas) and `extra`; expects it to succeed.
    static func packDemo(_ version: String, into out: String, from source: String? = nil, _ extra: [String] = []) throws {
        let packed = try PkgctlProcess.run(["pack", demoSource(source ?? version), "--name", "demo", "--version", version,
                                            "--out", out, "--route", "www.example.com/app", "--delta-from", "0"] + extra)
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    /// Publishes the demo versions into `origin` (zips + manifest.json) and returns their entries;
    /// with tree deltas from `deltaFrom` earlier versions (none by default: most tests are of the zip);
    /// with `allowDowngrade`, also below the version published there now.
    @discardableResult
    static func publishDemo(_ versions: [String], into origin: String, deltaFrom: Int = 0,
                            allowDowngrade: Bool = false) throws -> [ManifestEntry] {
        try versions.map {
            try PublishingFolder(origin).pack(
                source: demoSource($0), name: "demo", version: $0,
                options: .init(routes: ["www.example.com/app"], deltaFrom: deltaFrom, allowDowngrade: allowDowngrade))
        }
    }

    /// Forgets what `origin` published (its manifest, archived manifests and zips), so the next `pack` may re-pack a
    /// version with other bytes, as an earlier pkgctl did: for tests of what a device does when that happens.
    static func forgetPublishedReleases(in origin: String) throws {
        unlink(origin + "/manifest.json")
        try? FileManager.default.removeItem(atPath: origin + "/zips")
        try? FileManager.default.removeItem(atPath: origin + "/manifests")
    }

    /// Writes a tree of `files` files of `size` random bytes each, in nested folders.
    static func makeTree(at path: String, files: Int, size: Int, seed: UInt64 = 1) throws {
        var generator = SplitMix(seed: seed)
        for i in 0..<files {
            let directory = path + "/d\(i % 7)/e\(i % 3)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(generator.bytes(size)).write(to: URL(fileURLWithPath: directory + "/f\(i).bin"))
        }
    }

    /// Rewrites the manifest in `origin` with `transform` applied. The entries lose
    /// their per-file index, so an edit of a zip's url, size or hash is what the
    /// update meets (else the delta path would install from objects).
    static func editManifest(in origin: String, _ transform: (inout Manifest) -> Void) throws {
        let path = origin + "/manifest.json"
        var manifest = try Manifest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: path))), source: path)
        for i in manifest.packages.indices { manifest.packages[i].index = nil }
        transform(&manifest)
        try manifest.encoded().write(to: URL(fileURLWithPath: path))
    }
}

/// A tiny deterministic PRNG for test data.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` bytes, eight from each number, written through a buffer (as ``Array/filled(count:_:)``
    /// says why: one number a byte through `map` took 318 s for 96 MiB under ThreadSanitizer).
    mutating func bytes(_ count: Int) -> [UInt8] {
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        words.withUnsafeMutableBufferPointer { buffer in
            for index in buffer.indices { buffer[index] = next().littleEndian }
        }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }
}

import CZip

extension BundleFixtures {
    /// Renames one entry of a zip in place with libzip, e.g. to a name that
    /// would escape the extraction directory.
    static func renameEntry(in zipPath: String, from oldName: String, to newName: String) throws {
        var error: Int32 = 0
        guard let archive = zip_open(zipPath, 0, &error) else { throw PkgError(.corruptArchive, "zip_open \(zipPath): \(error)") }
        let index = zip_name_locate(archive, oldName, 0)
        guard index >= 0, zip_file_rename(archive, zip_uint64_t(index), newName, ZIP_FL_ENC_UTF_8) == 0,
              zip_close(archive) == 0 else {
            zip_discard(archive)
            throw PkgError(.corruptArchive, "cannot rename \(oldName) in \(zipPath)")
        }
    }
}
