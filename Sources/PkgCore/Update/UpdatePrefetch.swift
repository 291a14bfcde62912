/// How ``Updater`` fetches the ``ManifestEntry/prefetch`` list of each release it activates
/// into the overlay (``Resolver/prefetch(_:headers:concurrency:timeLimit:progress:)``).
public struct UpdatePrefetch: Sendable {
    /// The default ``timeLimit``: one minute.
    public static let defaultTimeLimit: Double = 60

    /// Where the fetches go and which CAs they trust, as a resolver serving the store would.
    public var resolver: ResolverConfiguration
    /// Seconds all of a run's prefetches may take together; what is not done by then fails.
    public var timeLimit: Double
    /// URLs fetched at once.
    public var concurrency: Int

    /// Prefetch settings; the defaults fetch from `https://HOST` with the system's CAs.
    public init(resolver: ResolverConfiguration = ResolverConfiguration(), timeLimit: Double = UpdatePrefetch.defaultTimeLimit,
                concurrency: Int = Resolver.defaultPrefetchConcurrency) {
        self.resolver = resolver
        self.timeLimit = timeLimit
        self.concurrency = concurrency
    }
}
