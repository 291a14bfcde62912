/// Progress of an update, reported as it happens (e.g. to draw a progress bar).
public enum UpdateEvent: Sendable {
    case downloading(name: String, version: String, received: UInt64, total: UInt64)
    case extracting(name: String, version: String)
    /// A cheaper way to install failed a check (a refused tree delta); the next way is used.
    case fellBack(name: String, version: String, reason: String)
    case finished(UpdateReport.PackageOutcome)
    /// After the run, the release's ``ManifestEntry/prefetch`` list was fetched into the overlay
    /// (``Updater/prefetch``): what happened to each URL. Failures here never fail the update.
    case prefetched(name: String, version: String, results: [PrefetchResult])
}
