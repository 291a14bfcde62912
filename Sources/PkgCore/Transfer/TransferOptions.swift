/// Settings shared by every transfer a ``Downloader`` makes.
///
/// ```swift
/// var options = TransferOptions(caFile: "/etc/pkgctl/ca.pem")
/// options.stallTimeout = 60
/// let downloader = Downloader(options: options)
/// ```
public struct TransferOptions: Sendable {
    /// A PEM file of certificate authorities to trust for https instead of the system's
    /// (libcurl's `CURLOPT_CAINFO`); `nil` uses the system store. Set by `--ca-file`.
    public var caFile: String?
    /// Seconds allowed for connecting, TLS handshake included.
    public var connectTimeout: Int = 10
    /// Seconds a transfer may stay below ``minimumRate`` before it is abandoned
    /// (libcurl's `CURLOPT_LOW_SPEED_TIME`): the window the rate is judged over.
    public var stallTimeout: Int = 30
    /// Bytes per second a transfer must keep up, averaged over ``stallTimeout`` seconds
    /// (libcurl's `CURLOPT_LOW_SPEED_LIMIT`), so an origin that drips its answer
    /// (TUF's slow-retrieval attack) is cut off instead of holding the run.
    public var minimumRate: Int = 1024
    /// When every transfer of the run must be over; nil: no bound on the run's time.
    /// Each transfer gets what is left as its total time, and no retry starts after it.
    public var deadline: Deadline?
    /// Attempts in all, the first included, before a retryable failure is reported.
    public var maxAttempts: Int = 4
    /// Seconds to wait before the first retry; each later retry waits twice as long.
    public var retryBaseDelay: Double = 0.5
    /// Longest `Retry-After` (of a 429 or 503) waited for within one run; an origin
    /// asking for more fails the transfer at once, naming the wait, for the next run to retry.
    public var maxRetryAfter: Double = 60

    /// Creates options; every argument has the default documented on its property.
    public init(
        caFile: String? = nil,
        connectTimeout: Int = 10,
        stallTimeout: Int = 30,
        minimumRate: Int = 1024,
        deadline: Deadline? = nil,
        maxAttempts: Int = 4,
        retryBaseDelay: Double = 0.5,
        maxRetryAfter: Double = 60
    ) {
        self.caFile = caFile
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.minimumRate = minimumRate
        self.deadline = deadline
        self.maxAttempts = maxAttempts
        self.retryBaseDelay = retryBaseDelay
        self.maxRetryAfter = maxRetryAfter
    }
}
