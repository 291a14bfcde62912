import Crypto
import FoundationEssentials

/// The progressive-delivery controller behind `pkgctl fleet watch`, run from cron or a timer
/// on the publishing side. Each run looks at the outcome reports of the package's newest
/// release (a ``FleetTally`` of the origin's logs) and decides one thing:
///
/// - **halt**: the release failed (rolled back or failed to install) on more than
///   ``maxFailureRate`` of the devices that tried it, at least ``minFailures`` of them, with
///   ``minDevices`` devices or with the whole 95 % interval above the threshold; or, with
///   ``maxNotFoundRate``, the same holds for the devices whose app met a 404 inside it (a
///   broken link its health check did not catch). It is revoked (re-signed), so every device
///   running it switches back, and the rollout returns to the release before it.
/// - **advance** to the next of ``steps``: ``minDevices`` tried it, it is under the
///   threshold, and ``interval`` has passed since the current step was first seen.
///
/// Reports are plain requests anyone can send: ``minFailures`` keeps one forged or freak
/// failure from halting a release, and ``minDevices`` should be set with the fleet's size in mind.
/// - **hold**: not enough devices or time yet, or above the threshold with too few failures to halt. **done** at 100 %; **idle** when already revoked.
///
/// It holds the output folder's lock (as `pack`, `rollout` and `revoke` do) from reading the
/// manifest to writing it, and remembers when it first saw each step in
/// `OUT_DIR/.pkgctl-watch-NAME.json`. Running it again without new reports or time decides
/// the same, and changes nothing more.
public struct RolloutWatch: Sendable {
    /// The publisher's output folder (holding `manifest.json`).
    public var outputDirectory: String
    /// The package watched.
    public var name: String
    /// Which of its releases, when it has one per host runtime range; nil: its only release.
    public var runtime: RuntimeRange?
    /// Rollout percentages, increasing; the last is normally 100.
    public var steps: [Double]
    /// Least time at a step before the next.
    public var interval: TimeInterval
    /// Highest share (0 to 1) of reporting devices that may fail the release.
    public var maxFailureRate: Double
    /// Devices that must try the release before it advances (or is halted on its rate alone).
    public var minDevices: Int
    /// Highest share (0 to 1) of devices running the release whose app may meet a 404 inside
    /// it (``FleetTally/Release/notFoundRate``); nil: 404s do not count.
    public var maxNotFoundRate: Double?
    /// Fewest failed devices that can halt a release.
    public static let minFailures = 3

    /// What a run decided.
    public enum Decision: String, Sendable, Hashable {
        case advance, hold, halt, done, idle
    }

    /// A decision, the release it is about, and one line saying what and why.
    public struct Verdict: Sendable, Hashable {
        public var decision: Decision
        public var version: String
        /// The rollout percentage after the decision.
        public var percent: Double
        public var line: String
    }

    /// A watch of `name` in `outputDirectory`.
    public init(outputDirectory: String, name: String, steps: [Double], interval: TimeInterval,
                maxFailureRate: Double, minDevices: Int, maxNotFoundRate: Double? = nil, runtime: RuntimeRange? = nil) {
        self.outputDirectory = outputDirectory
        self.name = name
        self.runtime = runtime
        self.steps = steps
        self.interval = interval
        self.maxFailureRate = maxFailureRate
        self.minDevices = minDevices
        self.maxNotFoundRate = maxNotFoundRate
    }

    private struct StepSeen: Codable {
        var version: String
        var percent: Double
        var since: Double
    }

    /// One file per watched release slot; a runtime range is named by the start of its text's SHA-256.
    private var statePath: String {
        let slot = runtime.map { "@" + Array(SHA256.hash(data: Array($0.text.utf8)).prefix(6)).hexString } ?? ""
        return outputDirectory + "/.pkgctl-watch-" + name + slot + ".json"
    }

    /// Decides, and unless `dryRun` carries the decision out (signing with `signer` when the
    /// manifest is signed). `now` is the time against ``interval``.
    public func run(_ tally: FleetTally, now: Date = Date(), dryRun: Bool = false,
                    signer: ManifestSigner? = nil) throws -> Verdict {
        let publisher = Publisher(outputDirectory: outputDirectory)
        let lock = try publisher.lockOutput()
        defer { withExtendedLifetime(lock) {} }
        guard let published = try PublishedManifest.read(outputDirectory + "/manifest.json") else {
            throw PkgError(.invalidArgument, "\(outputDirectory)/manifest.json has no package '\(name.escapedForMessage)'")
        }
        let entry = try publisher.release(of: name, runtime: runtime, in: published.manifest)
        let percent = entry.rollout?.percent ?? 100
        let label = "\(name) \(entry.version) at \(Rollout.format(percent))"
        if entry.revoked.contains(entry.version) {
            return Verdict(decision: .idle, version: entry.version, percent: percent, line: "\(label): idle: revoked already")
        }
        let seen = try stepSeen(version: entry.version, percent: percent, now: now)
        let release = tally.release(name, entry.version)
        let devices = release?.triedDevices ?? 0, failed = release?.failedDevices ?? 0
        let rate = release?.failureRate ?? 0
        let interval95 = release?.failureRateInterval ?? 0...1
        var evidence = "\(failed) of \(devices) devices failed (\(Self.percent(rate)), 95 % interval "
            + "\(Self.percent(interval95.lowerBound)) to \(Self.percent(interval95.upperBound)))"
        var breach: String?
        if confidentlyAbove(maxFailureRate, count: failed, of: devices, rate: rate, interval: interval95) {
            breach = "\(evidence), above \(Self.percent(maxFailureRate))"
        }
        var notFoundAbove = false
        if let maxNotFoundRate {
            let serving = release?.servingDevices ?? 0, met = release?.notFoundDevices ?? 0
            let share = release?.notFoundRate ?? 0, range = release?.notFoundRateInterval ?? 0...1
            let found = "\(met) of \(serving) devices met a 404 inside the app (\(Self.percent(share)), 95 % interval "
                + "\(Self.percent(range.lowerBound)) to \(Self.percent(range.upperBound)))"
            evidence += "; " + found
            notFoundAbove = share > maxNotFoundRate
            if breach == nil, confidentlyAbove(maxNotFoundRate, count: met, of: serving, rate: share, interval: range) {
                breach = "\(found), above \(Self.percent(maxNotFoundRate))"
            }
        }

        if let breach {
            var line = "\(label): halt: \(breach)"
            if dryRun { return Verdict(decision: .halt, version: entry.version, percent: percent, line: line + " (dry run)") }
            let after = try publisher.revokeHoldingLock(name: name, version: entry.version, signer: signer)
            line += after.version == entry.version ? "; revoked, devices go back to the version they ran before"
                : "; revoked, devices go back to \(after.version)"
            return Verdict(decision: .halt, version: entry.version, percent: after.rollout?.percent ?? 100, line: line)
        }
        if percent >= 100 {
            return Verdict(decision: .done, version: entry.version, percent: percent, line: "\(label): done: \(evidence)")
        }
        guard let next = steps.first(where: { $0 > percent }) else {
            return Verdict(decision: .hold, version: entry.version, percent: percent,
                           line: "\(label): hold: no step above \(Rollout.format(percent))")
        }
        if !dryRun { try remember(seen) }
        guard devices >= minDevices else {
            return Verdict(decision: .hold, version: entry.version, percent: percent,
                           line: "\(label): hold: \(devices) of \(minDevices) devices tried it; \(evidence)")
        }
        guard rate <= maxFailureRate else {
            return Verdict(decision: .hold, version: entry.version, percent: percent,
                           line: "\(label): hold: above \(Self.percent(maxFailureRate)) with fewer than \(Self.minFailures) "
                               + "failed devices; \(evidence)")
        }
        guard !notFoundAbove else {
            return Verdict(decision: .hold, version: entry.version, percent: percent,
                           line: "\(label): hold: 404s inside the app above \(Self.percent(maxNotFoundRate ?? 0)), not yet "
                               + "from \(Self.minFailures) devices with \(minDevices) running it or a confident rate; \(evidence)")
        }
        let waited = now.timeIntervalSince1970 - seen.since
        guard waited >= interval else {
            return Verdict(decision: .hold, version: entry.version, percent: percent,
                           line: "\(label): hold: \(Rollout.format(next)) in \(Self.duration(interval - waited)); \(evidence)")
        }
        let line = "\(label): advance to \(Rollout.format(next)): \(evidence)"
        if dryRun { return Verdict(decision: .advance, version: entry.version, percent: percent, line: line + " (dry run)") }
        _ = try publisher.setRolloutHoldingLock(name: name, runtime: runtime, percent: next, force: false, signer: signer)
        try remember(StepSeen(version: entry.version, percent: next, since: now.timeIntervalSince1970))
        return Verdict(decision: .advance, version: entry.version, percent: next, line: line)
    }

    /// Whether `count` of `devices` (a share `rate`, 95 % `interval`) is enough to halt at
    /// `threshold`: at least ``minFailures`` of them, above it, with ``minDevices`` devices or
    /// the whole interval above it.
    private func confidentlyAbove(_ threshold: Double, count: Int, of devices: Int, rate: Double,
                                  interval: ClosedRange<Double>) -> Bool {
        count >= Self.minFailures && rate > threshold && (devices >= minDevices || interval.lowerBound > threshold)
    }

    /// When this step of this release was first seen: from the state file, or now.
    private func stepSeen(version: String, percent: Double, now: Date) throws -> StepSeen {
        if let bytes = try FileSystem.read(statePath),
           let seen = try? JSONDecoder().decode(StepSeen.self, from: Data(bytes)),
           seen.version == version, seen.percent == percent {
            return seen
        }
        return StepSeen(version: version, percent: percent, since: now.timeIntervalSince1970)
    }

    private func remember(_ seen: StepSeen) throws {
        try FileSystem.writeAtomically(try JSONEncoder().encode(seen), to: statePath)
    }

    private static func percent(_ share: Double) -> String {
        DecimalText.tenths(share * 100, droppingZeroTenth: false) + " %"
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 3600 ? "\(whole / 3600) h \(whole % 3600 / 60) min" : whole >= 60 ? "\(whole / 60) min \(whole % 60) s" : "\(whole) s"
    }
}
