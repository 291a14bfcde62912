import FoundationEssentials

/// How a trial by launches ended for one version on this device.
public struct LaunchVerdict: Sendable, Hashable, Codable {
    /// Confirmed or reverted.
    public enum Decision: String, Sendable, Hashable, Codable {
        /// K clean launches: the version stays.
        case confirmed
        /// M bad launches: switched back, and the version held.
        case reverted
    }

    /// Confirmed or reverted.
    public var decision: Decision
    /// For a revert: the last bad launch's problem.
    public var problem: LaunchProblem?
    /// For a revert: the version switched back to (nil: none was active before).
    public var previous: String?
    /// The tree digest of the version the launches were served from (its record's).
    public var servedDigest: String?
    /// When it was decided.
    public var decidedAt: Date
    /// Whether `pkgctl update` has put it in an outcome report yet.
    public var reported: Bool
}
