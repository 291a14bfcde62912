import FoundationEssentials

/// The first step of an update run: find out which manifest is current and
/// whether it may be used. It reads the timestamp (when the policy has timestamp
/// keys), asks for the manifest conditionally when the last run's validators may
/// stand for it, authenticates what comes, and moves the store's sequence floors
/// (``TrustState``). Every refusal throws before any package is touched.
struct ManifestCheck {
    /// What the origin said about the manifest.
    enum Outcome {
        /// A 304 that may stand for the manifest the last fully successful run used, with
        /// what that run found that still stands (``ManifestState/standing(_:)``).
        case notModified(standing: [UpdateReport.PackageOutcome])
        /// A manifest, authenticated as the policy requires, with its validators.
        case fetched(OpenedManifest, HTTPValidators)
    }

    let store: PackageStore
    let manifestURL: String
    let trust: TrustPolicy
    let clock: @Sendable () -> Date
    let maxManifestSize: Int
    /// The device's host runtime: validators kept under another one do not stand.
    let runtime: RuntimeVersion?
    /// The id rollouts are decided for: validators kept under another one do not stand.
    let deviceID: String

    /// Fetches and checks the manifest (and its timestamp) with `downloader`.
    func fetch(_ downloader: Downloader) throws -> Outcome {
        let timestamp = trust.requiresTimestamp ? try fetchTimestamp(downloader) : nil
        let accepted = trust.requiresSignature ? try TrustState.load(store.layout) : nil
        let previous = standingState(current: timestamp, accepted: accepted)
        let fetched = try downloader.fetch(manifestURL, validators: previous?.validators, maxBytes: maxManifestSize)
        guard case .fetched(let body, let newValidators) = fetched else {
            try checkNotModified(conditional: previous != nil, accepted: accepted)
            return .notModified(standing: previous?.standing ?? [])
        }
        var opened = try trust.open(body, source: manifestURL, now: clock())
        var validators = newValidators
        if let timestamp, opened.payloadSHA256 != timestamp.manifestSHA256 {
            // Out of step (a cache holds one file longer than the other, or a publish is between
            // the two): the manifest the timestamp names, from its immutable snapshot. Its own
            // validators stand for nothing the next run asks for.
            opened = try fetchSnapshot(named: timestamp, downloader, instead: opened)
            validators = HTTPValidators()
        }
        if trust.requiresSignature {
            try TrustState.accept(opened, source: manifestURL, trusting: trust.keyIDs, stored: accepted, layout: store.layout)
        } else if FileSystem.exists(store.layout.trustState) {
            // A run that lost its --trusted-key (a cron line, a script) must not quietly stop verifying.
            throw PkgError(.untrustedManifest,
                           "store \(store.layout.root) has accepted signed manifests; reading another needs its "
                           + "trusted keys (to stop verifying, remove \(store.layout.trustState))", remedy: .trustedKeys)
        }
        return .fetched(opened, validators)
    }

    /// The manifest `timestamp` names, from `snapshots/<sha256>.json` beside the manifest, when
    /// `current` (what `manifest.json` gave) is another one. Refused in one line when the origin
    /// has no such snapshot (a publisher before snapshots) or it holds another manifest.
    private func fetchSnapshot(named timestamp: Timestamp, _ downloader: Downloader,
                               instead current: OpenedManifest) throws -> OpenedManifest {
        let outOfStep = "manifest \(manifestURL) (sequence \(current.manifest.sequence ?? 0)) is not the one "
            + "\(Timestamp.fileName) names (sequence \(timestamp.manifestSequence), sha256 \(timestamp.manifestSHA256.prefix(12))…)"
        let url = try ManifestEntry.resolve(Timestamp.snapshot(manifestSHA256: timestamp.manifestSHA256), relativeTo: manifestURL)
        let body: [UInt8]
        do {
            body = try downloader.fetchBody(url, maxBytes: maxManifestSize)
        } catch let error as PkgError where error.httpStatus == 404 {
            throw PkgError(.untrustedManifest, outOfStep + ", and the origin has no \(url); "
                           + "the publisher must renew the timestamp after signing")
        }
        let snapshot = try trust.open(body, source: url, now: clock())
        guard snapshot.payloadSHA256 == timestamp.manifestSHA256 else {
            throw PkgError(.untrustedManifest, outOfStep + ", and \(url) holds another one (sha256 "
                           + "\(snapshot.payloadSHA256.prefix(12))…)")
        }
        return snapshot
    }

    /// Keeps `validators` for the next run's conditional request, with what of `outcomes`
    /// a 304 then says again; call it only when every package of the manifest was dealt with.
    func remember(_ validators: HTTPValidators, outcomes: [UpdateReport.PackageOutcome]) throws {
        let standing = outcomes.compactMap(ManifestState.standing)
        try ManifestState(url: manifestURL, validators: validators, trustedKeyIDs: trust.keyIDs,
                          threshold: trust.threshold, runtime: runtime?.text, deviceID: deviceID,
                          standing: standing.isEmpty ? nil : standing).save(store.layout)
    }

    /// The last run's state, when its validators may stand for the manifest: same
    /// URL, same trusted keys, threshold, runtime and device id, and (with keys) an accepted manifest not yet
    /// expired, so an origin answering 304 forever cannot freeze a device; with a
    /// `current` timestamp, only when it names the manifest `accepted` last.
    private func standingState(current timestamp: Timestamp?, accepted: TrustState?) -> ManifestState? {
        guard let previous = ManifestState.load(store.layout), previous.url == manifestURL,
              previous.trustedKeyIDs ?? [] == trust.keyIDs, previous.threshold ?? 1 == trust.threshold,
              previous.runtime == runtime?.text, previous.deviceID == deviceID else { return nil }
        if trust.requiresSignature {
            guard let accepted,
                  clock().timeIntervalSince(accepted.expires) <= trust.clockSkew,
                  timestamp.map({ $0.manifestSHA256 == accepted.payloadSHA256 }) ?? true else { return nil }
        }
        return previous
    }

    /// `timestamp.json` beside the manifest, fetched on every run (it is what says
    /// the manifest is current) and checked against the timestamp keys.
    private func fetchTimestamp(_ downloader: Downloader) throws -> Timestamp {
        let url = try ManifestEntry.resolve(Timestamp.fileName, relativeTo: manifestURL)
        return try trust.openTimestamp(try downloader.fetchBody(url, maxBytes: Timestamp.maxSize), source: url, now: clock())
    }

    /// Refuses a 304 that cannot stand for the manifest: one answering a request that
    /// was not conditional, or (with keys) one while the accepted manifest has expired,
    /// so an origin answering 304 for ever cannot freeze a device past the expiry.
    private func checkNotModified(conditional: Bool, accepted: TrustState?) throws {
        if let accepted, clock().timeIntervalSince(accepted.expires) > trust.clockSkew {
            throw PkgError(.untrustedManifest,
                           "manifest \(manifestURL): the origin answered 304 Not Modified, but the manifest this store "
                           + "accepted expired at \(InternetDate.format(accepted.expires)) (now \(InternetDate.format(clock()))); "
                           + "the publisher must re-sign it (pkgctl sign)")
        }
        guard conditional else {
            throw Downloader.unaskedNotModified(manifestURL)
        }
    }
}
