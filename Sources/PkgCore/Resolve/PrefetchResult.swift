/// One URL of a prefetch (``Resolver/prefetch(_:headers:concurrency:timeLimit:progress:)``) and what happened to it.
public struct PrefetchResult: Sendable, Hashable {
    /// The URL as given.
    public let url: String
    /// What happened.
    public let outcome: PrefetchOutcome
    /// Body bytes received from the origin for it (0 when nothing was fetched).
    public let bytes: Int64
}
