import PkgCrypto

/// What an installed version holds: each regular file's path (relative to the
/// version directory, `/`-separated), size and SHA-256. Written at install,
/// read by `verify`.
public struct FileIndex: Codable, Sendable, Hashable {
    /// One installed file.
    public struct Entry: Codable, Sendable, Hashable {
        /// Size in bytes.
        public var size: UInt64
        /// Lower-case hex SHA-256 of the content.
        public var sha256: String
        /// An entry for one file.
        public init(size: UInt64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Files by relative path.
    public var files: [String: Entry]

    /// An index of `files`.
    public init(files: [String: Entry] = [:]) {
        self.files = files
    }

    /// The tree's digest: lower-case hex SHA-256 of `PATH NUL SHA256 NUL SIZE LF` for every file,
    /// in byte order of the paths. Two trees with the same files have the same digest however
    /// they were installed (zip, delta, objects); a publisher computes it from the index it published.
    public var treeDigest: String {
        var hash = SHA256()
        for path in files.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let entry = files[path]!
            hash.update(data: Array(path.utf8) + [0] + Array(entry.sha256.utf8) + [0] + Array("\(entry.size)\n".utf8))
        }
        return hash.finalize().hexString
    }
}
