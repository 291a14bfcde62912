import PkgCore

/// How ``PublishingFolder/pack(source:name:version:options:signer:)`` packs a release and lists
/// it: the flags of `pkgctl pack`.
public struct PackOptions: Sendable {
    /// Route patterns the package serves (``ManifestEntry/routes``).
    public var routes: [String]
    /// Below 100, only that share of devices installs the release (a new salt); nil: every device.
    public var rolloutPercent: Double?
    /// Cuts short an unfinished rollout, lowers this version's share, or replaces a release no
    /// device can have yet.
    public var force: Bool
    /// Also packs text files as `X.br` and `X.gz` (``Precompressor``).
    public var precompress: Bool
    /// The document served for navigations that match no file (``ManifestEntry/spaFallback``).
    public var spaFallback: String?
    /// Globs of files served as never changing (``ManifestEntry/immutable``).
    public var immutable: [String]
    /// Response headers for some files (``ManifestEntry/headers``).
    public var headers: [PackageHeader]
    /// Tree deltas are written from this many newest earlier versions (and from the release
    /// this one replaces).
    public var deltaFrom: Int
    /// Activates at once on devices that keep activation windows (``ManifestEntry/critical``).
    public var critical: Bool
    /// The host runtimes the release is for (``ManifestEntry/runtime``); nil: any.
    public var runtime: RuntimeRange?
    /// URLs devices fetch into their overlay after activating it (``ManifestEntry/prefetch``).
    public var prefetch: [String]
    /// Writers of files beside the bundle's own (image variants), as ``precompress`` adds some.
    public var siblingWriters: [any BundleSiblingWriter]
    /// Accepts a version that sorts below the one the manifest names for the slot now (devices
    /// install it as a downgrade).
    public var allowDowngrade: Bool

    /// Options as given; the defaults make a plain release: no routes, every device, deltas from 3 versions.
    public init(routes: [String] = [], rolloutPercent: Double? = nil, force: Bool = false, precompress: Bool = false,
                spaFallback: String? = nil, immutable: [String] = [], headers: [PackageHeader] = [], deltaFrom: Int = 3,
                critical: Bool = false, runtime: RuntimeRange? = nil, prefetch: [String] = [],
                siblingWriters: [any BundleSiblingWriter] = [], allowDowngrade: Bool = false) {
        self.routes = routes
        self.rolloutPercent = rolloutPercent
        self.force = force
        self.precompress = precompress
        self.spaFallback = spaFallback
        self.immutable = immutable
        self.headers = headers
        self.deltaFrom = deltaFrom
        self.critical = critical
        self.runtime = runtime
        self.prefetch = prefetch
        self.siblingWriters = siblingWriters
        self.allowDowngrade = allowDowngrade
    }
}
