import PkgCore

/// How far a publish has come: files and bytes copied of those to copy.
public struct PublishProgress: Sendable, Hashable {
    /// Files copied so far, and the files to copy.
    public var files = 0, totalFiles = 0
    /// Bytes copied so far, and the bytes to copy.
    public var bytes: UInt64 = 0, totalBytes: UInt64 = 0
}
