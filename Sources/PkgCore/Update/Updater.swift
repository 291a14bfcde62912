import FoundationEssentials

/// Brings a store up to date with a manifest: fetches it conditionally, then,
/// for every package whose version for this device (its staged rollout and
/// revocations decided) differs from the active one, downloads, verifies,
/// extracts and activates it, atomically. One package failing does not stop
/// the others.
///
/// Blocking: run it on a thread of its own, not on Swift's cooperative pool.
///
/// ```swift
/// let updater = Updater(store: PackageStore(root: root),
///                       manifestURL: "https://cdn.example.com/manifest.json")
/// let report = try updater.run()
/// print(report.succeeded)
/// ```
public struct Updater: Sendable {
    /// The store brought up to date.
    public var store: PackageStore
    /// The manifest's URL (http, https or file).
    public var manifestURL: String
    /// Timeouts, retries and the CA file for downloads.
    public var transfer: TransferOptions
    /// Zip-bomb limits every bundle must stay within.
    public var limits: ExtractionLimits
    /// Retained versions kept per package after the run (the active one always stays).
    public var keep: Int
    /// Threads extracting one bundle.
    public var workers: Int
    /// Which manifests are accepted; by default any (unauthenticated).
    public var trust: TrustPolicy
    /// The root of trust this device starts from; with one, ``trust`` comes from the newest
    /// root the origin offers (``RootUpdate``) and may not list keys of its own.
    public var trustedRoot: TrustedRoot?
    /// How a new version is switched in.
    public var activation: Activation
    /// The time against which manifest expiry is judged.
    public var clock: @Sendable () -> Date
    /// Who this device is for staged rollouts; nil: the store's own id
    /// (``PackageStore/deviceID()``, made once at random).
    public var deviceID: String?
    /// Most seconds to wait, at random, before the check, so a fleet started
    /// by the same timer does not poll in step. Waited before taking the lock.
    public var jitter: TimeInterval
    /// Most bytes of the manifest answer read, counted after decoding (TUF reads
    /// metadata "up to X bytes"); a larger answer is refused without being parsed.
    public var maxManifestSize: Int
    /// Seconds the run's transfers may take once it holds the store's lock; nil: no bound.
    /// Past it, a transfer is cut and no other starts (`.deadlineExceeded`), so a slow
    /// origin cannot hold the lock for ever.
    public var timeLimit: TimeInterval?
    /// Whether and where each package's outcome is reported to the origin; nil: not reported.
    public var reporting: OutcomeReporting?
    /// Local times in which a new version may become active; empty: any time. Outside them a
    /// new version is installed and waits (``UpdateReport/Action/pending``), unless its release
    /// is ``ManifestEntry/critical``, nothing is active yet (a first install), or the active
    /// version is revoked. While one waits, the manifest is fetched in full each run (no
    /// validators kept), so the run that opens the window sees the version.
    public var activationWindows: [ActivationWindow]
    /// The version of the host app this device runs; nil: not stated, so releases are chosen
    /// whatever the runtimes they name. With it, each package gets its newest release whose
    /// ``ManifestEntry/runtime`` range holds it (``UpdateReport/Action/incompatible`` when none
    /// does), and an active version that does not fit is left first, at once: for a fitting
    /// release, else a retained version that fits, else for nothing (it stops being served).
    public var runtime: RuntimeVersion?
    /// How the ``ManifestEntry/prefetch`` list of each release a run activates is fetched into
    /// the overlay once the store's lock is released; nil: such lists are ignored.
    public var prefetch: UpdatePrefetch?
    /// The image variants this device's web engine decodes (`update --accept-images`): where a
    /// release has one for a PNG or JPEG, the variant is installed instead of the original
    /// (``ImageVariantSelection``), file by file from the release's index. Empty: every file.
    public var acceptImages: Set<ImageVariant> = []

    /// The default ``maxManifestSize``: 1 MiB, some 2,000 packages.
    public static let defaultMaxManifestSize = 1 << 20

    /// An updater; `keep` must be at least 1.
    public init(store: PackageStore, manifestURL: String, transfer: TransferOptions = TransferOptions(),
                limits: ExtractionLimits = ExtractionLimits(), keep: Int = 2, workers: Int = 2,
                trust: TrustPolicy = TrustPolicy(), activation: Activation = .immediate,
                clock: @escaping @Sendable () -> Date = { Date() }, deviceID: String? = nil,
                jitter: TimeInterval = 0, maxManifestSize: Int = Updater.defaultMaxManifestSize,
                timeLimit: TimeInterval? = nil, reporting: OutcomeReporting? = nil,
                activationWindows: [ActivationWindow] = [], runtime: RuntimeVersion? = nil,
                prefetch: UpdatePrefetch? = nil, trustedRoot: TrustedRoot? = nil) {
        self.store = store
        self.manifestURL = manifestURL
        self.transfer = transfer
        self.limits = limits
        self.keep = keep
        self.workers = workers
        self.trust = trust
        self.activation = activation
        self.clock = clock
        self.deviceID = deviceID
        self.jitter = jitter
        self.maxManifestSize = maxManifestSize
        self.timeLimit = timeLimit
        self.reporting = reporting
        self.activationWindows = activationWindows
        self.runtime = runtime
        self.prefetch = prefetch
        self.trustedRoot = trustedRoot
    }

    /// Runs the update under the store's lock (waiting for it, after calling
    /// `onWait`, when `wait` is true). First finishes what a killed run left:
    /// staging debris, and health-check trials, which are reverted. Throws when
    /// the manifest cannot be fetched, parsed or trusted (then no package is
    /// downloaded or changed), or the lock cannot be had; package failures are
    /// in the report. Then, unlocked, prefetches what the releases it activated list (``prefetch``).
    public func run(wait: Bool = true, onWait: (String) -> Void = { _ in },
                    progress: @escaping @Sendable (UpdateEvent) -> Void = { _ in }) throws -> UpdateReport {
        guard keep >= 1 else { throw PkgError(.invalidArgument, "keep must be at least 1 (got \(keep))") }
        if jitter > 0 {
            guard jitter.isFinite else { throw PkgError(.invalidArgument, "jitter must be a finite number of seconds") }
            RetryPolicy.sleep(seconds: Double.random(in: 0..<jitter))
        }
        let report = try store.locked(wait: wait, onWait: onWait) { try runLocked(progress: progress) }
        prefetchActivated(report, progress: progress)
        return report
    }

    /// ``trust``, or with a ``trustedRoot`` what the newest root the origin offers trusts.
    private func currentTrust(_ downloader: Downloader) throws -> TrustPolicy {
        guard let trustedRoot else { return trust }
        guard !trust.requiresSignature else {
            throw PkgError(.invalidArgument, "a trusted root and trusted keys were both given; the root says which keys to trust")
        }
        return try RootUpdate(store: store, manifestURL: manifestURL, clock: clock, clockSkew: trust.clockSkew)
            .newest(from: trustedRoot, downloader).policy(clockSkew: trust.clockSkew)
    }

    private func runLocked(progress: @escaping @Sendable (UpdateEvent) -> Void) throws -> UpdateReport {
        try store.recover()
        let reverted = try store.revertUnconfirmedTrials(confirmedBy: .healthCheck).map(revertedOutcome)
        // Launches recorded while another process held the lock (an earlier run, this one's wait).
        try store.settleLaunchTrials(now: clock())

        var transfer = self.transfer
        if let timeLimit { transfer.deadline = Deadline(after: timeLimit) }
        let downloader = Downloader(options: transfer)
        let deviceID = try self.deviceID ?? store.deviceID()
        let reporter = OutcomeReporter.make(reporting, store: store, manifestURL: manifestURL, caFile: transfer.caFile)
        // Spooled before the manifest is fetched: a rollback of a killed run is reported even
        // when this run goes no further.
        reporter?.spool(UpdateReport(manifest: .notModified, packages: [], removed: [], reverted: reverted), deviceID: deviceID)
        reporter?.spoolLaunchVerdicts(store, deviceID: deviceID)
        let opened: OpenedManifest, newValidators: HTTPValidators
        let manifestMeter = TransferMeter()
        let check = ManifestCheck(store: store, manifestURL: manifestURL,
                                  trust: try currentTrust(downloader.metered(by: manifestMeter, as: .manifest)),
                                  clock: clock, maxManifestSize: maxManifestSize, runtime: runtime, deviceID: deviceID)
        switch try check.fetch(downloader.metered(by: manifestMeter, as: .manifest)) {
        case .notModified(let standing):
            reporter?.spoolSignals(store, deviceID: deviceID)
            reporter?.deliver(within: transfer.deadline)
            return UpdateReport(manifest: .notModified, manifestTransfer: manifestMeter.counted[.manifest], packages: standing,
                                removed: [], reverted: reverted)
        case .fetched(let manifest, let validators):
            (opened, newValidators) = (manifest, validators)
        }

        var outcomes: [UpdateReport.PackageOutcome] = []
        for offer in offersUnfitFirst(opened.manifest) {
            var outcome: UpdateReport.PackageOutcome
            if let entry = offer.fitting {
                let meter = TransferMeter(), started = ContinuousClock.now
                outcome = update(entry, deviceID: deviceID, downloader: downloader, meter: meter, progress: progress)
                if !meter.counted.isEmpty {
                    let took = started.duration(to: .now).components
                    outcome.transfer = PackageTransfer(kinds: meter.counted,
                                                       seconds: Double(took.seconds) + Double(took.attoseconds) / 1e18)
                }
                leaveIfUnfit(offer, &outcome)
            } else {
                outcome = incompatible(offer)
            }
            if store.activeVersion(of: offer.name) != nil { try store.clearIncompatible(offer.name) }
            progress(.finished(outcome))
            outcomes.append(outcome)
        }
        reporter?.spool(UpdateReport(manifest: .fetched, packages: outcomes, removed: [], reverted: []), deviceID: deviceID)
        reporter?.spoolSignals(store, deviceID: deviceID)
        let removed = try store.collectGarbage(keep: keep).map { "\($0.name) \($0.version)" }
        let report = UpdateReport(manifest: .fetched, manifestTransfer: manifestMeter.counted[.manifest], packages: outcomes,
                                  removed: removed, reverted: reverted)
        if report.succeeded {
            try store.removeObjects()  // no delta install is left unfinished
            if outcomes.contains(where: { $0.action == .pending }) {
                try ManifestState.clear(store.layout)  // the run inside the window must not get a 304
            } else {
                try check.remember(newValidators, outcomes: outcomes)
            }
        } else {
            try? ManifestState.clear(store.layout)  // the failure is what the report says
        }
        reporter?.deliver(within: transfer.deadline)
        return report
    }

    private func update(_ entry: ManifestEntry, deviceID: String, downloader: Downloader, meter: TransferMeter,
                        progress: @escaping @Sendable (UpdateEvent) -> Void) -> UpdateReport.PackageOutcome {
        let active = store.activeVersion(of: entry.name)
        var outcome = UpdateReport.PackageOutcome(name: entry.name, from: active, to: entry.version, action: .unchanged)
        var label = "\(entry.name) \(entry.version)"
        let leftOut = rolloutLeavingOut(deviceID, entry: entry, active: active)
        if let leftOut, !entry.revoked.contains(entry.version) {
            outcome.rollingOut = RollingOutRelease(version: entry.version, percent: leftOut.percent)
        }
        do {
            var offered = target(of: entry, leftOutBy: leftOut)
            if let active, entry.revoked.contains(active), let version = offered?.version,
               try store.heldVersions(of: entry.name).contains(version) {
                offered = nil  // held: fall back on the store rather than stay on a revoked version
            }
            // A version waiting for a window stops waiting once it is no longer offered, or
            // below, once it becomes active.
            let waiting = try store.pendingVersion(of: entry.name)
            if let waiting, waiting != offered?.version { try store.clearPending(entry.name) }
            guard let target = offered else {
                if let active, entry.revoked.contains(active) {
                    label = "\(entry.name) \(active)"
                    outcome.to = try withdraw(entry.name, from: active, revoked: entry.revoked)
                    outcome.action = .revoked
                } else if outcome.rollingOut != nil {
                    outcome.action = .staged
                } else if let active {
                    outcome.to = active
                } else {
                    outcome.action = .withdrawn
                }
                return outcome
            }
            outcome.to = target.version
            label = "\(target.name) \(target.version)"
            let installed = try store.record(of: target.name, version: target.version)
            if active == target.version {
                if waiting != nil { try store.clearPending(target.name) }
                guard let installed, installed.entry.sha256 != target.sha256 else { return outcome }
                throw PkgError(.invalidArgument,
                               "re-published with another bundle (sha256 \(target.sha256.prefix(12))…, installed "
                               + "\(installed.entry.sha256.prefix(12))…); the active version is kept, not replaced "
                               + "in place: publish the change as a new version")
            }
            if try store.heldVersions(of: target.name).contains(target.version) {
                outcome.action = .held
                return outcome
            }
            outcome.action = action(from: active, to: target.version)
            if installed?.entry.sha256 != target.sha256 {
                outcome.zipFallback = try ReleaseDownload(store: store, downloader: downloader, meter: meter,
                                                          manifestURL: manifestURL, limits: limits, workers: workers,
                                                          images: ImageVariantSelection(accepted: acceptImages))
                    .install(target, progress: progress)
            }
            // A first install does not wait (nothing else would serve meanwhile), nor does
            // leaving a revoked version or one that does not fit the host: that must happen
            // at once, like a critical release.
            let leavesRevoked = active.map(entry.revoked.contains) ?? false
            let leavesUnfit = active.map { !fitsRuntime(entry.name, $0) } ?? false
            if active != nil, !leavesRevoked, !leavesUnfit, !activationWindows.isEmpty, !target.critical,
               !ActivationWindow.anyContains(activationWindows, clock()) {
                try store.setPending(target.name, version: target.version)
                outcome.action = .pending
                return outcome
            }
            if waiting != nil { try store.clearPending(target.name) }
            try activate(target)
        } catch {
            var message = "\(error)"
            outcome.action = (error as? PkgError)?.code == .healthCheckFailed ? .rolledBack : .failed
            // A device left on a revoked version (its replacement failed) still leaves it.
            if let stuck = store.activeVersion(of: entry.name), entry.revoked.contains(stuck),
               let fallback = try? withdraw(entry.name, from: stuck, revoked: entry.revoked) {
                message += "; left revoked \(stuck) for \(fallback)"
            }
            outcome.error = message.hasPrefix(label) ? message : "\(label): \(message)"
            outcome.errorCode = (error as? PkgError)?.code.description ?? "unexpected"
        }
        return outcome
    }
}
