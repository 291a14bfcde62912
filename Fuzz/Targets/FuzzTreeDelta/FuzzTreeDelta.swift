import PkgCrypto
import FuzzSupport
import FoundationEssentials
import Glibc
import PkgCore

/// A tree delta (`OUT/deltas/BASE-TARGET.pkgdelta`, fetched by `update`) as
/// `TreeDelta.parse`, `TreeDeltaApplication` and its `apply` take it, against a fixed
/// installed version. Whatever it says, nothing is written outside the staging
/// directory, the base stays as it was, and an accepted delta builds exactly the tree
/// whose digest it names: every file in staging is in the returned index with its
/// true SHA-256 and size, and nothing else is there; and the in-memory build the
/// publisher checks each delta with (`builtTree`) gives the same index.
///
/// An input is a delta file, or, so that mutations reach the header's fields rather than
/// its zstd frame, the header's plain JSON, a NUL and the data frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTreeDelta(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    if let delta = try? TreeDelta.parse(bytes, label: "fuzz") {
        apply(delta)
    } else if let nul = bytes.firstIndex(of: 0),
              let header = try? JSONDecoder().decode(TreeDelta.Header.self, from: Data(bytes[..<nul])) {
        apply(TreeDelta(header: header, data: bytes[(nul + 1)...]))
    }
    return 0
}

private func apply(_ delta: TreeDelta) {
    let limits = ExtractionLimits(maxEntries: 64, maxTotalUncompressedSize: 1 << 24)
    guard let application = try? TreeDeltaApplication(delta: delta, base: TreeDeltaFixture.record.index, limits: limits,
                                                      label: "fuzz")
    else { return }
    let staging = TreeDeltaFixture.root + "/staging"
    FixtureFiles.removeTree(staging)
    FixtureFiles.makeDirectories(staging)
    defer { FixtureFiles.removeTree(staging) }
    let index = try? application.apply(from: TreeDeltaFixture.directory, into: staging)
    TreeDeltaFixture.checkBaseUnchanged()
    fuzzCheck(TreeDeltaFixture.entries(of: TreeDeltaFixture.root).keys.allSatisfy {
        $0.hasPrefix("base/") || $0.hasPrefix("staging/")
    }, "a file was written outside the staging directory")
    guard let index else { return }
    fuzzCheck(TreeDigest.of(index) == delta.header.target, "accepted a tree whose digest is not the delta's target")
    let written = TreeDeltaFixture.entries(of: staging)
    fuzzCheck(written == index.files, "the staging tree differs from the index returned: \(written.count) files vs \(index.files.count)")
    // The publisher's check (pack's TreeDeltaCheck) decodes in memory: it must build the same tree.
    let built = try? application.builtTree { entry in
        TreeDeltaFixture.files.values.first { TreeDeltaFixture.sha256($0) == entry.sha256 } ?? []
    }
    fuzzCheck(built == index, "the in-memory build differs from what a device applied")
}

/// The installed version deltas apply to: a few files of a bundler's output.
enum TreeDeltaFixture {
    static let files: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><script src=assets/Chunk0.a1b2c3d4.js></script>".utf8),
        "assets/Chunk0.a1b2c3d4.js": Array(String(repeating: "export const a = 1;\n", count: 50).utf8),
        "assets/Chunk1.Qx9_Zk2a.js": Array(String(repeating: "function f(x) { return x * 2 }\n", count: 30).utf8),
        "css/site.css": Array("body { margin: 0 }\n".utf8),
        "empty.txt": [],
    ]
    static let root = FixtureFiles.makeTemporaryDirectory("pkgctl-fuzz-delta")
    static let directory: String = {
        let directory = root + "/base"
        for (path, bytes) in files { FixtureFiles.write(bytes, to: directory + "/" + path) }
        atexit { FixtureFiles.removeTree(TreeDeltaFixture.root) }
        return directory
    }()
    static let record = VersionRecord(
        entry: ManifestEntry(name: "app", version: "1", url: "app-1.zip", sha256: String(repeating: "0", count: 64), size: 0),
        index: FileIndex(files: files.mapValues { FileIndex.Entry(size: UInt64($0.count), sha256: sha256($0)) }))

    static func sha256(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: SHA256.hash(data: bytes).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    static func checkBaseUnchanged() {
        let now = entries(of: directory)
        fuzzCheck(now == record.index.files, "the base version changed")
    }

    /// Every regular file under `top`, by path relative to it, with size and SHA-256.
    static func entries(of top: String) -> [String: FileIndex.Entry] {
        var result: [String: FileIndex.Entry] = [:]
        func walk(_ relative: String) {
            let path = relative.isEmpty ? top : top + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            if info.st_mode & S_IFMT == S_IFDIR, let handle = opendir(path) {
                var names: [String] = []
                while let entry = readdir(handle) {
                    let name = withUnsafeBytes(of: entry.pointee.d_name) {
                        String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
                    }
                    if name != "." && name != ".." { names.append(name) }
                }
                closedir(handle)
                for name in names { walk(relative.isEmpty ? name : relative + "/" + name) }
            } else {
                let bytes = FixtureFiles.read(path) ?? []
                result[relative] = FileIndex.Entry(size: UInt64(bytes.count), sha256: sha256(bytes))
            }
        }
        walk("")
        return result
    }
}

@main
enum FuzzTreeDeltaMain {
    static func main() {
        if let directory = getenv("PKGCTL_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) {
            TreeDeltaSeeds.write(into: directory)
            exit(0)
        }
        runFuzzer(fuzzTreeDelta)
    }
}
