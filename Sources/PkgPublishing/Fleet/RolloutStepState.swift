import FoundationEssentials
import PkgCore

/// What ``RolloutWatch`` remembers of the step a release is at, in
/// `OUT_DIR/.pkgctl-watch-NAME.json`: when it first saw the step, and how many intervals it has
/// held there for want of evidence. A new release or step starts afresh. A file written by an
/// earlier pkgctl (no hold count) reads as no holds yet. The file keeps the watch's decisions
/// beside it (``RolloutWatchFile``).
struct RolloutStepState: Codable, Sendable {
    var version: String
    var percent: Double
    /// When the step was first seen, in seconds since 1970.
    var since: Double
    /// Intervals held at this step for want of evidence (too few devices, or a rate above
    /// the threshold from too few of them).
    var holds: Int?
    /// When the last counted hold was, in seconds since 1970.
    var lastHold: Double?

    /// The state of `version` at `percent` in the file at `path`, or a new one starting `now`.
    static func read(_ path: String, version: String, percent: Double, now: Date) throws -> RolloutStepState {
        if let state = try RolloutWatchFile.read(path).step, state.version == version, state.percent == percent {
            return state
        }
        return RolloutStepState(version: version, percent: percent, since: now.timeIntervalSince1970)
    }

    /// Writes this state into the file at `path`, keeping its history.
    func write(to path: String) throws {
        var file = try RolloutWatchFile.read(path)
        file.step = self
        try file.write(to: path)
    }

    /// The state after one more hold `now`: counted when an `interval` has passed since the
    /// last counted hold (or the step began), so a watch run more often than its interval
    /// counts intervals, not runs.
    func holding(now: Date, interval: TimeInterval) -> RolloutStepState {
        var next = self
        if now.timeIntervalSince1970 - (lastHold ?? since) >= interval {
            next.holds = (holds ?? 0) + 1
            next.lastHold = now.timeIntervalSince1970
        }
        return next
    }
}
