/// Settings of a ``Resolver``.
///
/// ```swift
/// var configuration = ResolverConfiguration()
/// configuration.upstream = "https://127.0.0.1:8443"   // instead of https://HOST
/// configuration.caFile = "/etc/pkgctl/ca.pem"
/// configuration.writeThroughImages = true
/// ```
public struct ResolverConfiguration: Sendable {
    /// Base URL (scheme, host, optional port and path prefix, no trailing `/`)
    /// that replaces `https://HOST` for every fallback; nil keeps `https://HOST`.
    public var upstream: String?
    /// Per-route bases, keyed by a route as written in manifests
    /// (`www.example.com/app` or `www.example.com`); they win over ``upstream``.
    public var routeUpstreams: [String: String]
    /// PEM file of CA certificates for the origin's TLS; nil = the system's.
    public var caFile: String?
    /// Whether image misses are written through to the overlay (html, script and style always are).
    public var writeThroughImages: Bool
    /// Bytes read per chunk when streaming a local file.
    public var chunkSize: Int
    /// How often, at most, `ROOT/packages` is stat-ed to notice packages added or removed
    /// (a changed `current` of a routed package is noticed on every request).
    public var packageRescanMilliseconds: Int
    /// Connect timeout for origin requests.
    public var connectTimeoutMilliseconds: Int
    /// How long a task whose window stays full may pause an origin fetch that
    /// another task or the overlay write is waiting on; then it fails and the
    /// fetch goes on without it. Keep it below the origin's send timeout (nginx: 60 s).
    public var stalledReaderSeconds: Double

    /// A configuration; the defaults fetch misses from `https://HOST` with the system's CAs.
    public init(upstream: String? = nil, routeUpstreams: [String: String] = [:], caFile: String? = nil,
                writeThroughImages: Bool = false, chunkSize: Int = 64 * 1024,
                packageRescanMilliseconds: Int = 500, connectTimeoutMilliseconds: Int = 10_000,
                stalledReaderSeconds: Double = 20) {
        self.upstream = upstream
        self.routeUpstreams = routeUpstreams
        self.caFile = caFile
        self.writeThroughImages = writeThroughImages
        self.chunkSize = chunkSize
        self.packageRescanMilliseconds = packageRescanMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.stalledReaderSeconds = stalledReaderSeconds
    }
}
