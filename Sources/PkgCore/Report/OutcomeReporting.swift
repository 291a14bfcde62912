/// Whether and where ``Updater`` reports each package's outcome to the origin, as a plain
/// `GET URL?QUERY` (``OutcomeReport``) that the origin's access log records: a static server
/// or CDN answers it (a 404 is fine) and `pkgctl fleet report` reads the log.
///
/// A report never fails or holds up the update: all of a run's deliveries share
/// ``timeBudget``, one attempt each, and what does not reach the origin waits in the store
/// (``ReportSpool``) for a later run.
public struct OutcomeReporting: Sendable, Hashable {
    /// Where reports go; nil: `report/v1` beside the manifest (`https://cdn/app/manifest.json`
    /// reports to `https://cdn/app/report/v1`). Comes from the configuration, never from
    /// the manifest, so an unsigned manifest cannot send reports elsewhere.
    public var url: String?
    /// Seconds all the deliveries of one run may take together.
    public var timeBudget: Double
    /// The reporting program's version (the `v` field).
    public var client: String

    /// Reporting to `url` (nil: beside the manifest) as `client`.
    public init(url: String? = nil, timeBudget: Double = 5, client: String) {
        self.url = url
        self.timeBudget = timeBudget
        self.client = client
    }

    /// The report URL for the manifest at `manifestURL`.
    func destination(manifestURL: String) throws -> String {
        if let url { return url }
        return try ManifestEntry.resolve("report/v1", relativeTo: manifestURL)
    }
}
