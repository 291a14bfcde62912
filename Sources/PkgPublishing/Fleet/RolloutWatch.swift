import PkgCrypto
import FoundationEssentials
import PkgCore

/// The progressive-delivery controller behind `pkgctl fleet watch`, run from cron or a timer
/// on the publishing side. Each run looks at the outcome reports of the package's newest
/// release (a ``FleetTally`` of the origin's logs, as ``RolloutEvidence``) and decides one thing:
///
/// - **halt**: the release failed (rolled back or failed to install) on more than
///   ``maxFailureRate`` of the devices that tried it, with ``RolloutEvidence/minFailures``
///   failed devices among ``minDevices``, or with ``RolloutEvidence/minConfidentFailures`` when
///   the whole 95 % interval is above the threshold; or, with ``maxNotFoundRate``, the same holds
///   for the devices whose app met a 404 inside it. It is revoked (re-signed), so every device
///   running it switches back, and the rollout returns to the release before it.
/// - **advance** to the next of ``steps``: ``minDevices`` tried it, it is under the
///   threshold, and ``interval`` has passed since the current step was first seen.
/// - **hold**: not enough time, or not enough evidence yet. A hold for want of evidence lasts
///   at most ``maxHolds`` intervals: then a rate above the threshold halts, and a step whose
///   share of the fleet holds fewer than ``minDevices`` devices advances on the devices it has
///   (none failed above the threshold; none at all when ``minDevices`` devices report the package's
///   other releases, so the fleet is there and the share too small for it). **done** at 100 %;
///   **idle** when revoked.
/// - **undecided**: no device tried it in ``maxHolds`` intervals and too few report the package,
///   one failed device alone stayed above the threshold, or the logs hold no report: it says what
///   a person should check, and changes nothing.
///
/// Reports are plain requests anyone can send: one forged report never halts a release; two
/// halt one only while the devices that tried it are so few that two failures put the whole
/// interval above the threshold. ``minDevices`` should be set with the fleet's size in mind.
///
/// It holds the output folder's lock (as `pack`, `rollout` and `revoke` do) from reading the
/// manifest to writing it, and remembers each step in `OUT_DIR/.pkgctl-watch-NAME.json`
/// (``RolloutStepState``), with its last decisions (``RolloutDecisionRecord``, which
/// `fleet report --html --out-dir` marks on its timeline). Running it again without new
/// reports or time decides the same.
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
    /// Intervals a release may hold at a step for want of evidence before the watch decides anyway.
    public var maxHolds: Int

    /// A watch of `name` in `outputDirectory`.
    public init(outputDirectory: String, name: String, steps: [Double], interval: TimeInterval,
                maxFailureRate: Double, minDevices: Int, maxNotFoundRate: Double? = nil, runtime: RuntimeRange? = nil,
                maxHolds: Int = 3) {
        self.outputDirectory = outputDirectory
        self.name = name
        self.runtime = runtime
        self.steps = steps
        self.interval = interval
        self.maxFailureRate = maxFailureRate
        self.minDevices = minDevices
        self.maxNotFoundRate = maxNotFoundRate
        self.maxHolds = maxHolds
    }

    /// One file per watched release slot; a runtime range is named by the start of its text's SHA-256.
    private var statePath: String {
        let slot = runtime.map { "@" + Array(SHA256.hash(data: Array($0.text.utf8)).prefix(6)).hexString } ?? ""
        return PublishingFolder(outputDirectory).path(PublishedLayout.watchFile(name: name + slot))
    }

    /// Decides, and unless `dryRun` carries the decision out (signing with `signer` when the
    /// manifest is signed) and adds it to the history in the state file
    /// (``RolloutDecisionRecord``). `now` is the time against ``interval``.
    public func run(_ tally: FleetTally, now: Date = Date(), dryRun: Bool = false,
                    signer: ManifestSigner? = nil) throws -> Verdict {
        let folder = PublishingFolder(outputDirectory)
        guard FileSystem.isDirectory(outputDirectory) else { throw folder.missingManifest() }
        // A dry run reads under the shared lock and changes nothing, debris included.
        return try folder.withLock(dryRun ? .shared : .exclusive) {
            let verdict = try decide(tally, now: now, dryRun: dryRun, signer: signer)
            if !dryRun {
                try RolloutWatchFile.append(RolloutDecisionRecord(verdict, time: now, minDevices: minDevices), to: statePath)
            }
            return verdict
        }
    }

    /// ``run(_:now:dryRun:signer:)`` with the output folder locked.
    private func decide(_ tally: FleetTally, now: Date, dryRun: Bool, signer: ManifestSigner?) throws -> Verdict {
        let folder = PublishingFolder(outputDirectory)
        let entry = try folder.release(of: name, runtime: runtime, in: try folder.readManifest().manifest)
        let percent = entry.rollout?.percent ?? 100
        let evidence = RolloutEvidence(tally.release(name, entry.version), maxFailureRate: maxFailureRate,
                                       maxNotFoundRate: maxNotFoundRate)
        let step = Step(entry: entry, percent: percent, evidence: evidence, dryRun: dryRun,
                        state: try RolloutStepState.read(statePath, version: entry.version, percent: percent, now: now))

        if entry.revoked.contains(entry.version) { return step.verdict(.idle, "idle: revoked already") }
        if tally.channel == nil, tally.channels.count > 1 {
            return step.verdict(.undecided, "undecided: the logs hold reports to the channels "
                                + tally.channels.map(\.description).joined(separator: ", ")
                                + "; pass --channel to watch the one OUT_DIR is published to")
        }
        if let breach = evidence.breach(minDevices: minDevices) { return try halt(step, breach, signer: signer) }
        if percent >= 100 { return step.verdict(.done, "done: \(evidence.summary)") }
        guard let next = steps.first(where: { $0 > percent }) else {
            return step.verdict(.hold, "hold: no step above \(Rollout.format(percent))")
        }
        guard tally.reports > 0 else {
            let skipped = tally.otherChannels.isEmpty ? ""
                : " to channel \(tally.channel?.description ?? "/") (skipped the reports to "
                    + tally.otherChannels.sorted().map(\.description).joined(separator: ", ") + ")"
            return step.verdict(.undecided, "undecided: the logs hold no outcome report\(skipped); check that --log is the "
                                + "origin's access log and that devices report (update without --no-report)")
        }
        // Too few devices, or a rate above the threshold from too few to halt on: a hold for
        // want of evidence, counted; past maxHolds of them the watch decides on what it has.
        let lacking: String? = evidence.devices < minDevices ? "\(evidence.devices) of \(minDevices) devices tried it"
            : evidence.isAboveThreshold ? "above the threshold with too few failed devices to halt it" : nil
        if let lacking {
            return try decideLacking(lacking, step: step, next: next, tally: tally, now: now, signer: signer)
        }
        if !dryRun { try step.state.write(to: statePath) }
        let waited = now.timeIntervalSince1970 - step.state.since
        guard waited >= interval else {
            return step.verdict(.hold, "hold: \(Rollout.format(next)) in \(Self.duration(interval - waited)); \(evidence.summary)")
        }
        return try advance(to: next, verdict: step.verdict(.advance, "advance to \(Rollout.format(next)): \(evidence.summary)",
                                                           percent: next), dryRun: dryRun, signer: signer, now: now)
    }

    /// The facts one decision is made on, and the verdict it makes of them.
    private struct Step {
        let entry: ManifestEntry
        let percent: Double
        let evidence: RolloutEvidence
        let dryRun: Bool
        let state: RolloutStepState

        /// `decision` with its one line, after which the rollout is at `after` and has been held `holds` times.
        func verdict(_ decision: Decision, _ line: String, percent after: Double? = nil, holds: Int? = nil) -> Verdict {
            let label = "\(entry.name) \(entry.version) at \(Rollout.format(percent))"
            return Verdict(decision: decision, version: entry.version, percentBefore: percent, percent: after ?? percent,
                           evidence: evidence, holds: holds ?? state.holds ?? 0,
                           line: label + ": " + line + (dryRun && [.halt, .advance].contains(decision) ? " (dry run)" : ""))
        }
    }

    /// Revokes the step's release (unless a dry run) for `reason`.
    private func halt(_ step: Step, _ reason: String, signer: ManifestSigner?) throws -> Verdict {
        guard !step.dryRun else { return step.verdict(.halt, "halt: \(reason)") }
        let after = try PublishingFolder(outputDirectory).revokeHoldingLock(name: name, version: step.entry.version, signer: signer)
        return step.verdict(.halt, "halt: \(reason)" + (after.version == step.entry.version
                ? "; revoked, devices go back to the version they ran before" : "; revoked, devices go back to \(after.version)"),
                            percent: after.rollout?.percent ?? 100)
    }

    /// The decision when the step lacks evidence (`lacking` says what): a counted hold, and past
    /// ``maxHolds`` of them a decision on what the step has.
    private func decideLacking(_ lacking: String, step: Step, next: Double, tally: FleetTally, now: Date,
                               signer: ManifestSigner?) throws -> Verdict {
        let evidence = step.evidence, percent = step.percent
        let held = step.state.holding(now: now, interval: interval)
        let holds = held.holds ?? 0
        guard holds > maxHolds else {
            if !step.dryRun { try held.write(to: statePath) }
            return step.verdict(.hold, "hold: \(lacking); \(evidence.summary); held \(holds) of \(maxHolds) intervals",
                                holds: holds)
        }
        if evidence.isAboveThreshold {
            guard evidence.failingDevices >= RolloutEvidence.minConfidentFailures else {
                return step.verdict(.undecided, "undecided: one device failed it, above the threshold, for "
                                    + "\(Self.intervals(maxHolds)): too little to halt on, too much to advance; "
                                    + "\(evidence.summary); read its "
                                    + "report (pkgctl fleet report), then revoke it or move it on by hand", holds: holds)
            }
            return try halt(step, "above the threshold for \(Self.intervals(maxHolds)) without the devices to confirm it; "
                            + evidence.summary, signer: signer)
        }
        // No device tried it: a share too small for this fleet moves on when the logs show the
        // fleet reporting (minDevices devices reported some release of the package); else a
        // person must look.
        let reporting = tally.releases.filter { $0.package == name }.reduce(into: Set<String>()) { $0.formUnion($1.devices) }
        if evidence.devices == 0, reporting.count >= minDevices {
            return try advance(to: next, verdict: step.verdict(.advance, "advance to \(Rollout.format(next)): "
                + "\(Self.intervals(maxHolds)) at \(Rollout.format(percent)) gave no device of the \(reporting.count) "
                + "reporting \(name)", percent: next), dryRun: step.dryRun, signer: signer, now: now)
        }
        guard evidence.devices > 0 else {
            return step.verdict(.undecided, "undecided: no device tried it in \(Self.intervals(maxHolds)) and "
                                + "\(reporting.count) reported \(name) at all; check that devices poll and report to this "
                                + "origin, or move it on by hand (pkgctl rollout \(outputDirectory) \(name) "
                                + "\(DecimalText.tenths(next, droppingZeroTenth: true)))", holds: holds)
        }
        return try advance(to: next, verdict: step.verdict(.advance, "advance to \(Rollout.format(next)): "
            + "\(Self.intervals(maxHolds)) at \(Rollout.format(percent)) gave \(evidence.devices) of \(minDevices) devices, "
            + "none failing above the threshold; \(evidence.summary)", percent: next), dryRun: step.dryRun, signer: signer,
            now: now)
    }

    /// Raises the rollout to `next` (unless `dryRun`) and starts the step's clock; returns `verdict`.
    private func advance(to next: Double, verdict: Verdict, dryRun: Bool, signer: ManifestSigner?, now: Date) throws -> Verdict {
        guard !dryRun else { return verdict }
        _ = try PublishingFolder(outputDirectory).setRolloutHoldingLock(name: name, runtime: runtime, percent: next,
                                                                                  force: false, signer: signer)
        try RolloutStepState(version: verdict.version, percent: next, since: now.timeIntervalSince1970).write(to: statePath)
        return verdict
    }

    /// "1 interval", "3 intervals".
    private static func intervals(_ count: Int) -> String {
        count == 1 ? "1 interval" : "\(count) intervals"
    }

    private static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return whole >= 3600 ? "\(whole / 3600) h \(whole % 3600 / 60) min" : whole >= 60 ? "\(whole / 60) min \(whole % 60) s" : "\(whole) s"
    }
}
