/// What ``OriginPublisher/publish(dryRun:progress:)`` did, or with `dryRun` would do.
public struct PublishSummary: Sendable, Hashable {
    /// Content-named files copied, and their bytes.
    public var copied = 0, copiedBytes: UInt64 = 0
    /// Content-named files already in the destination with the same bytes, and their bytes.
    public var skipped = 0, skippedBytes: UInt64 = 0
    /// URLs of the manifest naming files elsewhere (with a scheme), not copied.
    public var external = 0
    /// The mutable files written last (`timestamp.json`, `manifest.json`), in that order;
    /// empty when the destination already had them.
    public var mutableFiles: [String] = []
    /// The published manifest's signed sequence; nil when it is not signed.
    public var sequence: UInt64?
}

/// How far a publish has come: files and bytes copied of those to copy.
public struct PublishProgress: Sendable, Hashable {
    /// Files copied so far, and the files to copy.
    public var files = 0, totalFiles = 0
    /// Bytes copied so far, and the bytes to copy.
    public var bytes: UInt64 = 0, totalBytes: UInt64 = 0
}
