/// Checks a downloaded bundle (a zip) and extracts it safely and in parallel.
///
/// ```swift
/// let extractor = BundleExtractor(archivePath: "staging/demo.zip", label: "demo 1.2.0")
/// let contents = try extractor.inspect()          // refuses unsafe bundles, writes nothing
/// let index = try extractor.extract(contents, into: "staging/demo-1.2.0")
/// ```
///
/// Every error is a ``PkgError`` whose message starts with `label`, e.g.
/// "demo 1.2.0: entry '../evil.txt': path leaves the bundle".
public struct BundleExtractor: Sendable {
    /// The zip file to read.
    let archivePath: String
    /// Prefix of every error message, e.g. "demo 1.2.0".
    let label: String
    /// Bounds the bundle must stay within.
    let limits: ExtractionLimits

    /// Creates an extractor for the zip at `archivePath`; `label` prefixes
    /// every error message, e.g. "demo 1.2.0".
    public init(archivePath: String, label: String, limits: ExtractionLimits = ExtractionLimits()) {
        self.archivePath = archivePath
        self.label = label
        self.limits = limits
    }

    /// An `.unsafeEntry`, `.archiveLimit` or `.corruptArchive` error about one entry.
    func entryError(_ code: PkgError.Code, _ name: String, _ reason: String) -> PkgError {
        PkgError(code, "\(label): entry '\(name.escapedForMessage)': \(reason)")
    }

}
