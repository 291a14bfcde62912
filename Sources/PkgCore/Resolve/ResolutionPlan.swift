/// What the resolver would do with a request, without doing it (see
/// ``Resolver/plan(for:)``); `pkgctl resolve` prints it.
public struct ResolutionPlan: Sendable {
    /// How the request was classified.
    public var resourceClass: ResourceClass
    /// The package whose route matched.
    public var package: String?
    /// That package's active version.
    public var version: String?
    /// Set when the answer is local: the file's path.
    public var localFile: String?
    /// Whether that file is an overlay entry rather than a package file.
    public var fromOverlay: Bool
    /// Set when the answer comes from the origin.
    public var upstreamURL: String?
    /// Whether a complete, cacheable origin answer would be written to the overlay, and where.
    public var overlayPath: String?
    /// Whether concurrent identical misses would share one fetch.
    public var coalesced: Bool

    /// What an offline host says of a request no package or cached answer holds (`url` as the
    /// request gave it): the C ABI's `PKGCTL_ERR_OFFLINE` message, `pkgctl serve --offline`'s 404
    /// body, `pkgctl resolve --offline`.
    public static func offlineMiss(url: String) -> String {
        "\(url.escapedForMessage) is in no installed package (offline)"
    }
}
