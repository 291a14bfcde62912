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
}
