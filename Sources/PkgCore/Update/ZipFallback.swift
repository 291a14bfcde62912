/// Why a device installed a release from its whole zip although the manifest offered a cheaper
/// way (a tree delta, or a file index and objects): what `update` reports (`z`) so the fleet
/// learns what its deltas cost it, instead of only seeing more bytes.
public enum ZipFallback: String, Sendable, Hashable, Codable, CaseIterable {
    /// A delta, the index or an object was not what the manifest names (a corrupt copy on a CDN edge).
    case hashMismatch
    /// Deltas were offered, none from the version the device runs (it skipped releases, or runs none).
    case missingBase
    /// The delta or the objects the device lacks would have weighed as much as the zip.
    case tooLarge
    /// The delta, the index or an object could not be fetched (a 404, a refused or cut transfer).
    case transferError

    /// The reason a refusal of the cheaper way with `error` gives.
    init(_ error: PkgError) {
        switch error.code {
        case .checksumMismatch, .sizeMismatch: self = .hashMismatch
        default: self = .transferError
        }
    }
}
