/// What the resolver would do with a request, without doing it (see
/// ``Resolver/plan(for:)``); `pkgctl resolve` prints it.
public struct ResolutionPlan: Sendable {
    /// How the request was classified.
    public var resourceClass: ResourceClass
    /// The package whose route matched, and its active version.
    public var package: String?
    public var version: String?
    /// Set when the answer is local: the file, and whether it is a package file or an overlay entry.
    public var localFile: String?
    public var fromOverlay: Bool
    /// Set when the answer comes from the origin.
    public var upstreamURL: String?
    /// Whether a complete, cacheable origin answer would be written to the overlay, and where.
    public var overlayPath: String?
    /// Whether concurrent identical misses would share one fetch.
    public var coalesced: Bool
}
