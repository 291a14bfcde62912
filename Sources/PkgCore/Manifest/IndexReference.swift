import FoundationEssentials

/// Where a version's ``PublishedFileIndex`` is, and its hash and size.
public struct IndexReference: Codable, Sendable, Hashable {
    /// URL of the index, absolute or relative to the manifest's.
    public var url: String
    /// Lower-case hex SHA-256 of the index file.
    public var sha256: String
    /// Size of the index file in bytes.
    public var size: UInt64

    /// A value of these fields, as the publisher writes it.
    package init(url: String, sha256: String, size: UInt64) {
        self.url = url
        self.sha256 = sha256
        self.size = size
    }
}
