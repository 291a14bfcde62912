/// How far a prefetch (``Resolver/prefetch(_:headers:concurrency:timeLimit:progress:)``) has come.
public struct PrefetchProgress: Sendable, Hashable {
    /// URLs decided so far.
    public let done: Int
    /// URLs asked for.
    public let total: Int
    /// Body bytes received from the origin so far, by the URLs decided.
    public let bytes: Int64
}
