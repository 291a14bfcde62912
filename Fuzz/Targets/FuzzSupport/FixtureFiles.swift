import Glibc

/// Files the fuzz targets' fixtures write under /tmp, with plain libc calls (a
/// failure is a broken fixture, not a finding, so it stops the process).
public enum FixtureFiles {
    /// Writes `bytes` to `path`, creating its directories.
    public static func write(_ bytes: [UInt8], to path: String) {
        makeDirectories(String(path[..<path.lastIndex(of: "/")!]))
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0, bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            fatalError("fixture: cannot write \(path)")
        }
        close(fd)
    }

    /// Creates `path` and its parents.
    public static func makeDirectories(_ path: String) {
        var partial = ""
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o755) != 0 && errno != EEXIST { fatalError("fixture: mkdir \(partial)") }
        }
    }

    /// The bytes of the file at `path`, or nil when it cannot be read.
    public static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? result : nil }
            result += buffer[..<count]
        }
    }

    /// A new directory under /tmp named after `prefix`.
    public static func makeTemporaryDirectory(_ prefix: String) -> String {
        var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("fixture: mkdtemp failed")
        }
        return String(cString: made)
    }

    /// Removes the tree at `path` (no symlink is followed).
    public static func removeTree(_ path: String) {
        if unlink(path) == 0 { return }
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name != "." && name != ".." { removeTree(path + "/" + name) }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}
