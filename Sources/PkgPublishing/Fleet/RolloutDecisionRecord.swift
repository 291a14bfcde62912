import FoundationEssentials
import PkgCore

/// One decision of ``RolloutWatch``, as `OUT_DIR/.pkgctl-watch-NAME.json` keeps it (the last
/// ``limit`` of them, beside the step's state): when, about which release and step, what, why,
/// and the numbers and thresholds it was decided on. A dry run records nothing. A decision that
/// changes nothing (hold, done, idle, undecided) repeated at the same step is one record, with
/// its latest line and numbers, its first ``time``, ``lastTime`` and ``runs``: a watch run every
/// few minutes keeps weeks of history.
///
/// ```swift
/// for (package, decisions) in try RolloutDecisionRecord.history(in: "out") {
///     for decision in decisions { print(package, decision.version, decision.decision, decision.line) }
/// }
/// ```
public struct RolloutDecisionRecord: Codable, Sendable, Hashable {
    /// When, in seconds since 1970 (the first run, for a repeated decision).
    public var time: Double
    /// The last run of a repeated decision; nil: one run.
    public var lastTime: Double?
    /// Runs that decided so; nil: one.
    public var runs: Int?
    /// The release decided about.
    public var version: String
    /// Its rollout percentage before the decision.
    public var percentBefore: Double
    /// Its rollout percentage after it.
    public var percent: Double
    /// What was decided.
    public var decision: RolloutWatch.Decision
    /// The line the watch printed.
    public var line: String
    /// Devices that had tried the release.
    public var devices: Int
    /// Of them, those that failed it.
    public var failedDevices: Int
    /// The 95 % interval of the failure rate, 0 to 1.
    public var failureRateLow: Double, failureRateHigh: Double
    /// The watch's thresholds: highest failure rate (0 to 1), and devices needed.
    public var maxFailureRate: Double, minDevices: Int
    /// The 404 signal and its threshold, when the watch weighed it.
    public var notFoundDevices: Int?, servingDevices: Int?, maxNotFoundRate: Double?

    /// Decisions kept per file; older ones are dropped.
    public static let limit = 500

    /// Whether `next` repeats this decision, changing nothing, and is kept as one record with it.
    func isRepeated(by next: RolloutDecisionRecord) -> Bool {
        [.hold, .done, .idle, .undecided].contains(next.decision) && next.decision == decision
            && next.version == version && next.percentBefore == percentBefore && next.percent == percent
    }

    init(_ verdict: RolloutWatch.Verdict, time: Date, minDevices: Int) {
        self.time = time.timeIntervalSince1970
        version = verdict.version
        percentBefore = verdict.percentBefore
        percent = verdict.percent
        decision = verdict.decision
        line = verdict.line
        devices = verdict.evidence.devices
        failedDevices = verdict.evidence.failedDevices
        failureRateLow = verdict.evidence.failureRateInterval.lowerBound
        failureRateHigh = verdict.evidence.failureRateInterval.upperBound
        maxFailureRate = verdict.evidence.maxFailureRate
        self.minDevices = minDevices
        notFoundDevices = verdict.evidence.notFound?.devices
        servingDevices = verdict.evidence.notFound?.servingDevices
        maxNotFoundRate = verdict.evidence.notFound?.maxRate
    }

    /// The decisions recorded in `outputDirectory`, per package, oldest first (those of
    /// releases per runtime range together). A file that does not read is skipped.
    public static func history(in outputDirectory: String) throws -> [String: [RolloutDecisionRecord]] {
        guard FileSystem.isDirectory(outputDirectory) else {
            throw PkgError(.invalidArgument, "\(outputDirectory.escapedForMessage) is not a directory")
        }
        var history: [String: [RolloutDecisionRecord]] = [:]
        for file in try FileSystem.contents(of: outputDirectory)
        where file.hasPrefix(PublishedLayout.watchPrefix) && file.hasSuffix(".json") {
            let name = file.dropFirst(PublishedLayout.watchPrefix.count).dropLast(".json".count).prefix { $0 != "@" }
            guard let records = try? RolloutWatchFile.read(outputDirectory + "/" + file).history else { continue }
            history[String(name), default: []] += records
        }
        return history.mapValues { $0.sorted { $0.time < $1.time } }
    }
}
