import FoundationEssentials
import PkgCore

/// What ``OriginPruner/prune(dryRun:now:)`` removed (or with `dryRun` would remove) and kept.
public struct PruneSummary: Sendable, Hashable {
    /// The files removed, relative to the folder, and their bytes.
    public var removed: [String] = [], removedBytes: UInt64 = 0
    /// The files kept, and their bytes.
    public var kept = 0, keptBytes: UInt64 = 0
    /// Manifests whose files were kept: the current one and those of the grace period.
    public var manifests = 0
    /// When the oldest archived manifest was written, if that is within the grace period: the
    /// manifests before it are not known, so nothing was removed.
    public var historyStarts: Date?
}
