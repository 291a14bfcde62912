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

    /// Bytes below which an entry's compression ratio is not checked: tiny
    /// files of repeated bytes compress far beyond any sane ratio.
    static let ratioCheckMinimumSize: UInt64 = 1024

    /// Creates an extractor for the zip at `archivePath`; `label` prefixes
    /// every error message, e.g. "demo 1.2.0".
    public init(archivePath: String, label: String, limits: ExtractionLimits = ExtractionLimits()) {
        self.archivePath = archivePath
        self.label = label
        self.limits = limits
    }

    /// An `.unsafeEntry`, `.archiveLimit` or `.corruptArchive` error about one entry.
    func entryError(_ code: PkgError.Code, _ name: String, _ reason: String) -> PkgError {
        PkgError(code, "\(label): entry '\(Self.displayName(name))': \(reason)")
    }

    /// `name` with control characters escaped, so a message stays on one line.
    static func displayName(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars {
            let value = scalar.value
            if value < 0x20 || value == 0x7f || (0x80...0x9f).contains(value) {
                text += "\\u{" + String(value, radix: 16) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}
