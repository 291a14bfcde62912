import FoundationEssentials

/// One published version of a package: where its zip is and what it serves.
public struct Release: Codable, Sendable, Hashable {
    /// Version text.
    public var version: String
    /// Absolute URL of the zip, or one relative to the manifest's URL.
    public var url: String
    /// Lower-case hex SHA-256 of the zip.
    public var sha256: String
    /// Size of the zip in bytes.
    public var size: UInt64
    /// Hosts with optional path prefixes the version serves.
    public var routes: [String]
    /// The version's single-page-app fallback document, if any.
    public var spaFallback: String?
    /// The version's per-file index, so devices given this release keep file deltas.
    public var index: IndexReference?
    /// The version's tree deltas, so devices given this release keep them.
    public var deltas: [DeltaReference]?
    /// The version's immutable globs.
    public var immutable: [String]?
    /// The version's declared response headers.
    public var headers: [PackageHeader]?
    /// Whether the version activates whatever the device's activation windows.
    public var critical: Bool?
    /// The host runtimes the version fits (``ManifestEntry/runtime``).
    public var runtime: String?
    /// The URLs devices given the version prefetch (``ManifestEntry/prefetch``).
    public var prefetch: [String]?

    /// The release of a manifest entry.
    public init(_ entry: ManifestEntry) {
        version = entry.version
        url = entry.url
        sha256 = entry.sha256
        size = entry.size
        routes = entry.routes
        spaFallback = entry.spaFallback
        index = entry.index
        deltas = entry.deltas.isEmpty ? nil : entry.deltas
        immutable = entry.immutable.isEmpty ? nil : entry.immutable
        headers = entry.headers.isEmpty ? nil : entry.headers
        critical = entry.critical ? true : nil
        runtime = entry.runtime
        prefetch = entry.prefetch.isEmpty ? nil : entry.prefetch
    }

    /// This release as a manifest entry of package `name` (no rollout, nothing revoked).
    public func entry(name: String) -> ManifestEntry {
        var entry = ManifestEntry(name: name, version: version, url: url, sha256: sha256, size: size, routes: routes)
        entry.spaFallback = spaFallback
        entry.index = index
        entry.deltas = deltas ?? []
        entry.immutable = immutable ?? []
        entry.headers = headers ?? []
        entry.critical = critical ?? false
        entry.runtime = runtime
        entry.prefetch = prefetch ?? []
        return entry
    }
}
