import Crypto
import Glibc

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

    /// Its bytes in `folder`, which must be a regular file (not a symlink) of the size and SHA-256
    /// named; `namer` (`OUT/manifest.json`) is who names it, for the error.
    func read(in folder: String, namedBy namer: String) throws -> [UInt8] {
        let path = folder + "/" + self.path
        guard let bytes = try Self.readRegularFile(path, limit: size.map { Int(clamping: $0) } ?? .max) else {
            throw PkgError(.fileSystem, "\(path): missing, yet \(namer) names it")
        }
        guard size.map({ $0 == UInt64(bytes.count) }) ?? true, SHA256.hash(data: bytes).hexString == sha256 else {
            throw PkgError(.checksumMismatch, "\(path): not the bytes \(namer) names (other size or SHA-256)")
        }
        return bytes
    }

    /// The bytes of the regular file at `path` (at most `limit` and one more), nil when it does
    /// not exist (nor its folder); a symlink or anything else that is not a regular file is refused.
    static func readRegularFile(_ path: String, limit: Int = .max) throws -> [UInt8]? {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw fileSystemError("stat", path)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = info.st_mode & S_IFMT == S_IFLNK ? "a symlink" : "not a regular file"
            throw PkgError(.unsafeEntry, "\(path): \(what); publishing copies regular files only")
        }
        return try FileSystem.read(path, limit: limit)
    }
}
