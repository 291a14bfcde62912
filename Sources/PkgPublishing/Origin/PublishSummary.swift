import PkgCore

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
