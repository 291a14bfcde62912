import PkgCrypto
import Glibc
import PkgCore

/// A file of a publishing folder that a manifest names: its path relative to the folder, and
/// the SHA-256 and size its bytes must have (from the manifest, the index that lists it, or its name).
public struct PublishedFile: Sendable, Hashable {
    /// What a file is to a device; a safe upload copies them in this order.
    enum Kind { case object, index, delta, zip }

    /// `/`-separated path relative to the folder (`zips/demo-1.1.0.<sha256>.zip`).
    public let path: String
    /// Lower-case hex SHA-256 of the bytes.
    public let sha256: String
    /// Size in bytes, when known before reading it.
    public let size: UInt64?

    /// The bytes a copy holds in memory at once, whatever the file's size.
    static let copyBufferSize = 1 << 20

    /// Its bytes in `folder`, which must be a regular file (not a symlink) of the size and SHA-256
    /// named; `namer` (`OUT/manifest.json`) is who names it, for the error. For the small files
    /// (indexes) a command parses; the rest is copied with ``copy(in:to:namedBy:flush:)``.
    func read(in folder: String, namedBy namer: String) throws -> [UInt8] {
        let path = folder + "/" + self.path
        guard let bytes = try Self.readRegularFile(path, limit: size.map { Int(clamping: $0) } ?? .max) else {
            throw PkgError(.fileSystem, "\(path): missing, yet \(namer) names it")
        }
        guard size.map({ $0 == UInt64(bytes.count) }) ?? true, SHA256.hash(data: bytes).hexString == sha256 else {
            throw mismatch(path, namedBy: namer)
        }
        return bytes
    }

    /// Copies it from `folder` to the new file `temporary` (mode 0644) through a buffer of
    /// ``copyBufferSize``, hashing as it goes, and returns its size: memory stays bounded for a
    /// file of any size. Refused, with `temporary` removed, when the source is not a regular file
    /// of the size and SHA-256 named. With `flush`, `temporary` is fsynced before the return.
    func copy(in folder: String, to temporary: String, namedBy namer: String, flush: Bool) throws -> UInt64 {
        let source = folder + "/" + path
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else {
            if errno == ENOENT { throw PkgError(.fileSystem, "\(source): missing, yet \(namer) names it") }
            if errno == ELOOP { throw Self.notRegular(source, "a symlink") }
            throw fileSystemError("open", source)
        }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw fileSystemError("stat", source) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Self.notRegular(source, "not a regular file") }
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw fileSystemError("create", temporary) }
        do {
            defer { close(output) }
            let copied = try Self.stream(input, source: source, to: output, path: temporary)
            guard size.map({ $0 == copied.size }) ?? true, copied.sha256 == sha256 else {
                throw mismatch(source, namedBy: namer)
            }
            if fchmod(output, 0o644) != 0 { throw fileSystemError("chmod", temporary) }
            if flush, fsync(output) != 0 { throw fileSystemError("fsync", temporary) }
            return copied.size
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Reads `input` to its end into `output` through one buffer; returns the size and SHA-256.
    private static func stream(_ input: Int32, source: String, to output: Int32,
                               path: String) throws -> (size: UInt64, sha256: String) {
        var hasher = SHA256()
        var size: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: copyBufferSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(input, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw fileSystemError("read", source)
            }
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hasher.update(bufferPointer: chunk)
            try FileSystem.writeAll(chunk, to: output, path: path)
            size += UInt64(count)
        }
        return (size, hasher.finalize().hexString)
    }

    /// The size of it in `folder` when a regular file of its name is there; nil when none is. With
    /// `verify`, its bytes are read and must hash to ``sha256``; without, the name and the size are
    /// trusted: pkgctl writes a content-named file only under a temporary name and renames it once
    /// whole and checked, so a file under the name holds those bytes unless someone else wrote it.
    func existingSize(in folder: String, verify: Bool) throws -> UInt64? {
        let path = folder + "/" + self.path
        guard let found = try Self.regularFileSize(path) else { return nil }
        let other = PkgError(.checksumMismatch, "\(path): other bytes than its name says; a content-named file never "
                             + "changes: remove it (and purge it from the CDN) if it is debris")
        if let size, size != found { throw other }
        if verify, try FileHasher.hash(file: path).sha256 != sha256 { throw other }
        return found
    }

    /// The bytes of the regular file at `path` (at most `limit` and one more), nil when it does
    /// not exist (nor its folder); a symlink or anything else that is not a regular file is refused.
    static func readRegularFile(_ path: String, limit: Int = .max) throws -> [UInt8]? {
        guard try regularFileSize(path) != nil else { return nil }
        return try FileSystem.read(path, limit: limit)
    }

    /// The size of the regular file at `path`, nil when it does not exist (nor its folder); a
    /// symlink or anything else that is not a regular file is refused.
    private static func regularFileSize(_ path: String) throws -> UInt64? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw fileSystemError("stat", path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw notRegular(path, info.st_mode & S_IFMT == S_IFLNK ? "a symlink" : "not a regular file")
        }
        return UInt64(info.st_size)
    }

    private func mismatch(_ path: String, namedBy namer: String) -> PkgError {
        PkgError(.checksumMismatch, "\(path): not the bytes \(namer) names (other size or SHA-256)")
    }

    private static func notRegular(_ path: String, _ what: String) -> PkgError {
        PkgError(.unsafeEntry, "\(path): \(what); publishing copies regular files only")
    }
}
