import CSystemShims
import FoundationEssentials
import Glibc

/// Small, explicit filesystem operations with errors that name the path.
package enum FileSystem {
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    package static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Creates `path` and any missing parents (mode 0755).
    package static func makeDirectories(_ path: String) throws {
        if isDirectory(path) { return }
        let parent = PathName.parent(path)
        if !parent.isEmpty, parent != path { try makeDirectories(parent) }
        try makeDirectory(path)
    }

    /// Creates `path` (mode 0755) unless it exists; its parent must exist (ENOENT otherwise).
    package static func makeDirectory(_ path: String) throws {
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw fileSystemError("mkdir", path) }
    }

    /// A new, empty, uniquely named directory `DIRECTORY/PREFIX.XXXXXX` (mode 0755).
    static func makeTemporaryDirectory(in directory: String, prefix: String) throws -> String {
        var template = Array((directory + "/" + prefix + ".XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw fileSystemError("mkdtemp", directory + "/" + prefix)
        }
        chmod(made, 0o755)
        return String(cString: made)
    }

    /// Names in a directory, without "." and ".."; empty when it does not exist.
    package static func contents(of path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            if errno == ENOENT { return [] }
            throw fileSystemError("opendir", path)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Removes a file, a symlink or a whole tree; no error when it is already gone.
    package static func removeTree(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw fileSystemError("lstat", path)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try contents(of: path) { try removeTree(path + "/" + name) }
            if rmdir(path) != 0, errno != ENOENT { throw fileSystemError("rmdir", path) }
        } else if unlink(path) != 0, errno != ENOENT {
            throw fileSystemError("unlink", path)
        }
    }

    /// Flushes a directory's entries (new names, renames) to disk.
    package static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw fileSystemError("fsync", path) }
    }

    /// Flushes every dirty page of the filesystem holding `path`: one call instead
    /// of an fsync per extracted file.
    package static func syncFileSystem(containing path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        defer { close(fd) }
        if pkg_syncfs(fd) != 0 { throw fileSystemError("syncfs", path) }
    }

    /// Writes `bytes` to a temp file beside `path`, fsyncs it and renames it over `path`,
    /// so readers see the old content or the new, never a part.
    package static func writeAtomically(_ bytes: some Collection<UInt8>, to path: String) throws {
        let temporary = temporaryName(beside: path)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fileSystemError("open", temporary) }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do {
            try writeAll(bytes, to: fd, path: temporary)
            if fsync(fd) != 0 { throw fileSystemError("fsync", temporary) }
            closed = true
            if close(fd) != 0 { throw fileSystemError("close", temporary) }
            if rename(temporary, path) != 0 { throw fileSystemError("rename", temporary) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(PathName.parent(path))
    }

    /// Creates `path` with `mode` and writes `bytes` into it, failing when the
    /// file exists (O_EXCL): for keys, which must never be overwritten. Without `flush`
    /// the file is not fsynced: for a caller that flushes many files with one `syncfs`.
    package static func createExclusively(_ bytes: some Collection<UInt8>, at path: String, mode: mode_t,
                                  flush: Bool = true) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw fileSystemError("create", path) }
        do {
            try writeAll(bytes, to: fd, path: path)
            if fchmod(fd, mode) != 0 { throw fileSystemError("chmod", path) }
            if flush, fsync(fd) != 0 { throw fileSystemError("fsync", path) }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        if close(fd) != 0 {
            let error = fileSystemError("close", path)
            unlink(path)
            throw error
        }
    }

    package static func writeAll(_ bytes: some Collection<UInt8>, to fd: Int32, path: String) throws {
        try Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw fileSystemError("write", path)
                }
                offset += written
            }
        }
    }

    /// Prefix of the temp names `writeAtomically` and `replaceSymlink` use: a
    /// leading dot, which no package name or version can have.
    package static let temporaryPrefix = ".tmp-"

    /// `DIR/.tmp-PID-NAME` for `DIR/NAME`.
    package static func temporaryName(beside path: String) -> String {
        let directory = PathName.parent(path)
        return directory + "/" + temporaryPrefix + "\(getpid())-" + PathName.lastComponent(path)
    }

    /// The whole content of a file, or nil when it does not exist. With `limit`, reading stops
    /// once more than `limit` bytes are in (the result is then longer than `limit`: a caller
    /// refuses it without the rest of a huge file being read).
    package static func read(_ path: String, limit: Int = .max) throws -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw fileSystemError("open", path)
        }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count <= limit {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw fileSystemError("read", path)
            }
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// The target of a symlink, or nil when `path` is not one.
    static func symlinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Points the symlink `path` at `target` atomically: a new link under a temp
    /// name, renamed over the old one.
    static func replaceSymlink(_ path: String, target: String) throws {
        let temporary = temporaryName(beside: path)
        unlink(temporary)
        if symlink(target, temporary) != 0 { throw fileSystemError("symlink", temporary) }
        if rename(temporary, path) != 0 {
            let error = fileSystemError("rename", temporary)
            unlink(temporary)
            throw error
        }
        try syncDirectory(PathName.parent(path))
    }

    /// Bytes and inodes an unprivileged writer may still use on the filesystem holding `path`.
    static func freeSpace(at path: String) throws -> (bytes: UInt64, inodes: UInt64) {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw fileSystemError("statvfs", path) }
        return (UInt64(info.f_bavail) * UInt64(info.f_frsize), UInt64(info.f_favail))
    }

    /// mtime of `path` in nanoseconds, or -1 when it does not exist.
    package static func modificationStamp(_ path: String) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    }
}
