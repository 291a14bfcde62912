import PkgCore

/// A release as `prune` counts each package's newest versions: per slot (package and host
/// runtime range, as a manifest lists one release per slot), then by version.
struct ReleaseKey: Hashable {
    /// The package and its runtime range.
    let slot: String
    /// The release's version.
    let version: String

    init(_ named: ManifestReferences.NamedRelease) {
        slot = named.name + "\u{0}" + (named.release.runtime ?? "")
        version = named.release.version
    }
}
