/// What an installed version holds: each regular file's path (relative to the
/// version directory, `/`-separated), size and SHA-256. Written at install,
/// read by `verify`.
public struct FileIndex: Codable, Sendable, Hashable {
    /// One installed file.
    public struct Entry: Codable, Sendable, Hashable {
        public var size: UInt64
        public var sha256: String
        public init(size: UInt64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Files by relative path.
    public var files: [String: Entry]

    public init(files: [String: Entry] = [:]) {
        self.files = files
    }
}
