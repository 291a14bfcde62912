import NIOCore

/// How a ``PreviewServer`` listens and maps HTTP requests to resolver requests.
public struct PreviewServerConfiguration: Sendable {
    /// Address to bind, e.g. `127.0.0.1` or `::1`.
    public var bindHost: String
    /// Port to bind; 0 picks a free one (see ``PreviewServer/start()``).
    public var port: Int
    /// Host an origin-form request (`GET /app/index.html`) is resolved for, as if
    /// the custom-scheme URL were `SCHEME://DEFAULT-HOST/app/index.html`. When nil,
    /// the request's `Host` header is used.
    public var defaultHost: String?
    /// The custom scheme given to the resolver (`app`).
    public var scheme: String
    /// Event-loop threads; defaults to one per core.
    public var threads: Int
    /// Keep-alive connections idle this long are closed.
    public var idleTimeout: TimeAmount
    /// Largest request body accepted (POST passthrough); larger ones get 413.
    public var maxRequestBody: Int
    /// Answer only from packages and the overlay: a miss is a 404, nothing goes to the origin.
    public var offline: Bool
    /// Whether an origin-form `GET /` (or `HEAD /`) is redirected with a 302 to
    /// ``PkgCore/Resolver/entryPath(forHost:)`` (e.g. `/app/`) when no package serves the
    /// host's root, instead of going to the origin.
    public var redirectsRoot: Bool
    /// Whether each request is counted through swift-metrics (`pkgctl_requests_total`,
    /// `pkgctl_response_bytes_total`, `pkgctl_request_duration_seconds`); bootstrap
    /// `MetricsSystem` before making the server. Off, counting costs nothing.
    public var recordsMetrics: Bool

    /// A configuration; the defaults listen on 127.0.0.1:8080.
    public init(bindHost: String = "127.0.0.1", port: Int = 8080, defaultHost: String? = nil, scheme: String = "app",
                threads: Int = System.coreCount, idleTimeout: TimeAmount = .seconds(60),
                maxRequestBody: Int = 16 << 20, offline: Bool = false, redirectsRoot: Bool = true,
                recordsMetrics: Bool = false) {
        self.bindHost = bindHost
        self.port = port
        self.defaultHost = defaultHost
        self.scheme = scheme
        self.threads = threads
        self.idleTimeout = idleTimeout
        self.maxRequestBody = maxRequestBody
        self.offline = offline
        self.redirectsRoot = redirectsRoot
        self.recordsMetrics = recordsMetrics
    }
}
