import PkgCore

/// A tree delta ``PublishingFolder`` has computed and not yet written: its bytes, or nil when the
/// same delta is in the output directory already.
struct PendingDelta: Sendable {
    /// The version it starts from.
    var from: String
    /// ``TreeDigest`` of the tree it starts from, and of the tree it builds.
    var base: String, target: String
    /// Its path under the output directory (``PublishedLayout/delta(base:target:sha256:)``).
    var url: String
    /// Its bytes, to write; nil: written before.
    var bytes: [UInt8]?
}
