import FoundationEssentials

/// A version switched in on trial: it serves at once, but until it is
/// confirmed the store remembers the version it replaced, and a revert
/// switches back to that one and holds the tried version.
///
/// `pkgctl update --health-check` confirms by running a command; an app
/// confirms itself (``PackageStore/confirm(_:version:)``) once its first page
/// rendered, and reverts an unconfirmed trial when it starts again
/// (``PackageStore/revertUnconfirmedTrials(confirmedBy:)``); the resolver confirms or reverts
/// a trial by launches from what the web view loaded (``PackageStore/settleLaunchTrial(_:waitingForLock:)``).
public struct ActivationTrial: Codable, Sendable, Hashable {
    /// Who confirms a trial.
    public enum Confirmer: String, Codable, Sendable, Hashable {
        /// `update`'s health check, within the same run; a trial left behind means the run was killed.
        case healthCheck
        /// The embedding app, at some later time.
        case app
        /// The resolver, from the version's launches (``rule``).
        case launches
    }

    /// The package.
    public var name: String
    /// The version on trial.
    public var version: String
    /// The last confirmed version, switched back to on revert; nil when there was none.
    public var previous: String?
    /// Who confirms it.
    public var confirmedBy: Confirmer
    /// When the trial began.
    public var startedAt: Date
    /// For ``Confirmer/launches``: how many launches settle it.
    public var rule: LaunchTrialRule?
}
