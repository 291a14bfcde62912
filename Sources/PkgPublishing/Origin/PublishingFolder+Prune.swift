import FoundationEssentials
import PkgCore

extension PublishingFolder {
    /// Removes the files old releases left here, keeping each package's `keep` newest versions and
    /// what a manifest of the last `grace` seconds names (``OriginPruner``); with `dryRun`, only
    /// lists them. Holds the exclusive lock.
    public func prune(keep: Int = OriginPruner.defaultKeep, grace: Double = OriginPruner.defaultGrace,
                      dryRun: Bool = false, now: Date = Date()) throws -> PruneSummary {
        try OriginPruner(directory: root, keep: keep, grace: grace).prune(dryRun: dryRun, now: now)
    }
}
