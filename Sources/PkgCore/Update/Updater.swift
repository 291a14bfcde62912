import Foundation

/// Brings a store up to date with a manifest: fetches it conditionally, then,
/// for every package whose version differs from the active one, downloads,
/// verifies, extracts and activates it, atomically. One package failing does
/// not stop the others.
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

    /// An updater; `keep` must be at least 1.
    public init(store: PackageStore, manifestURL: String, transfer: TransferOptions = TransferOptions(),
                limits: ExtractionLimits = ExtractionLimits(), keep: Int = 2, workers: Int = 2) {
        self.store = store
        self.manifestURL = manifestURL
        self.transfer = transfer
        self.limits = limits
        self.keep = keep
        self.workers = workers
    }

    /// Runs the update under the store's lock (waiting for it, after calling
    /// `onWait`, when `wait` is true). Throws when the manifest cannot be
    /// fetched or parsed, or the lock cannot be had; package failures are in the report.
    public func run(wait: Bool = true, onWait: (String) -> Void = { _ in },
                    progress: @escaping @Sendable (UpdateEvent) -> Void = { _ in }) throws -> UpdateReport {
        guard keep >= 1 else { throw PkgError(.invalidArgument, "--keep must be at least 1 (got \(keep))") }
        let lock = try StoreLock(layout: store.layout, wait: wait, onWait: onWait)
        defer { withExtendedLifetime(lock) {} }
        try store.recover()

        let downloader = Downloader(options: transfer)
        let previous = ManifestState.load(store.layout)
        let validators = previous?.url == manifestURL ? previous?.validators : nil
        guard case .fetched(let body, let newValidators) = try downloader.fetch(manifestURL, validators: validators) else {
            return UpdateReport(manifest: .notModified, packages: [], removed: [])
        }
        let manifest = try Manifest.parse(body, source: manifestURL)

        var outcomes: [UpdateReport.PackageOutcome] = []
        for entry in manifest.packages {
            let outcome = update(entry, downloader: downloader, progress: progress)
            progress(.finished(outcome))
            outcomes.append(outcome)
        }
        let removed = try store.collectGarbage(keep: keep).map { "\($0.name) \($0.version)" }
        if outcomes.allSatisfy({ $0.action != .failed }) {
            try ManifestState(url: manifestURL, validators: newValidators).save(store.layout)
        } else {
            ManifestState.clear(store.layout)
        }
        return UpdateReport(manifest: .fetched, packages: outcomes, removed: removed)
    }

    private func update(_ entry: ManifestEntry, downloader: Downloader,
                        progress: @escaping @Sendable (UpdateEvent) -> Void) -> UpdateReport.PackageOutcome {
        let active = store.activeVersion(of: entry.name)
        var outcome = UpdateReport.PackageOutcome(name: entry.name, from: active, to: entry.version, action: .unchanged)
        guard active != entry.version else { return outcome }
        if let active {
            outcome.action = PackageVersion(entry.version) < PackageVersion(active) ? .downgraded : .upgraded
        } else {
            outcome.action = .installed
        }
        do {
            if try store.record(of: entry.name, version: entry.version)?.entry.sha256 != entry.sha256 {
                try download(entry, downloader: downloader, progress: progress)
            }
            try store.activate(entry.name, version: entry.version)
        } catch {
            let label = "\(entry.name) \(entry.version)"
            let message = "\(error)"
            outcome.action = .failed
            outcome.error = message.hasPrefix(label) ? message : "\(label): \(message)"
        }
        return outcome
    }

    /// Downloads, verifies and installs one version (not yet active).
    private func download(_ entry: ManifestEntry, downloader: Downloader,
                          progress: @escaping @Sendable (UpdateEvent) -> Void) throws {
        if try store.record(of: entry.name, version: entry.version) != nil {
            // Same version, different bundle: the origin re-published it; replace it.
            try store.discardTree(store.layout.versionDirectory(entry.name, entry.version))
        }
        let url = try entry.resolvedURL(relativeTo: manifestURL)
        try store.ensureRoom(forBytes: entry.size, purpose: "\(entry.name) \(entry.version): downloading \(url)")
        let archive = try store.makeStagingDirectory(prefix: "\(entry.name)-\(entry.version).download")
        defer { try? FileSystem.removeTree(archive) }
        let zip = archive + "/bundle.zip"
        try downloader.download(from: url, to: zip, expectedSize: entry.size, expectedSHA256: entry.sha256) { received, total in
            progress(.downloading(name: entry.name, version: entry.version, received: received, total: total))
        }
        progress(.extracting(name: entry.name, version: entry.version))
        _ = try store.install(entry, archive: zip, limits: limits, workers: workers)
    }
}
