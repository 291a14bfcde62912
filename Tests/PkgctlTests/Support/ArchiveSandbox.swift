import Foundation

/// A temporary directory laid out for archive tests, removed on deinit:
///
///     ROOT/bundle.zip     the archive under test
///     ROOT/work/out/      the extraction target
///     ROOT/source/        a tree to pack
final class ArchiveSandbox {
    let root: String

    var archivePath: String { root + "/bundle.zip" }
    var work: String { root + "/work" }
    var out: String { root + "/work/out" }
    var source: String { root + "/source" }

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("ArchiveTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Every path under `directory`, relative to it, sorted; symlinks are listed, not followed.
    func tree(_ directory: String) -> [String] {
        var paths: [String] = []
        func walk(_ relative: String) {
            let path = relative.isEmpty ? directory : directory + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                paths.append(child)
                var info = stat()
                if lstat(directory + "/" + child, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { walk(child) }
            }
        }
        walk("")
        return paths.sorted()
    }

    /// Paths that exist outside the extraction target (besides the archive,
    /// the source tree and the `work` and `work/out` directories themselves).
    func strayPaths() -> [String] {
        tree(root).filter { path in
            !(path == "bundle.zip" || path == "work" || path == "work/out" || path.hasPrefix("work/out/")
                || path == "source" || path.hasPrefix("source/"))
        }
    }

    /// Writes `data` at `relative` under `directory`, creating parents.
    func put(_ data: [UInt8], at relative: String, in directory: String) throws {
        let url = URL(fileURLWithPath: directory + "/" + relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try Data(data).write(to: url)
    }

    func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `sha256sum` of a file: an oracle independent of the code under test.
    static func sha256sum(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = ProcessLaunch.pipe()
        process.standardOutput = pipe
        try ProcessLaunch.run(process)
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
    }

    /// Deterministic pseudo-random bytes.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9e37_79b9_7f4a_7c15 | 1
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }
}
