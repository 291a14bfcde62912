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
}
