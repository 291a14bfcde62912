/// What ``Resolver/prefetch(_:headers:concurrency:timeLimit:progress:)`` did for one URL.
public enum PrefetchOutcome: Sendable, Hashable, CustomStringConvertible {
    /// A package's active version answers it (a file, its SPA fallback, a redirect): nothing was fetched.
    case inPackage(name: String, version: String)
    /// The overlay already held it: nothing was fetched.
    case inOverlay
    /// Fetched from the origin and written through to the overlay.
    case kept
    /// Fetched from the origin but not written through, for `Reason`.
    case notKept(Reason)
    /// Nothing kept: the URL was refused, the origin unreachable or answering an error
    /// status, the answer cut short, or the time limit passed.
    case failed(PkgError)

    /// Why a fetched answer is not in the overlay.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The class is never written through (``ResourceClass/other``: fonts, JSON, API answers).
        case resourceClass(ResourceClass)
        /// The URL has a query string, which no overlay key holds.
        case query
        /// The request carries `Authorization`: the answer is for that user alone.
        case credentials
        /// The host is no safe overlay directory name.
        case host
        /// The origin's answer may not be stored: the field or status that says so.
        case answer(String)
        /// The answer looked storable but no entry appeared: a write error, or the fetch was
        /// shared with a request that does not write through.
        case notCommitted

        public var description: String {
            switch self {
            case .resourceClass(let resourceClass): "\(resourceClass.rawValue)-class answers are never written through"
            case .query: "a URL with a query string is never written through"
            case .credentials: "a request with Authorization is never written through"
            case .host: "the host is not a safe overlay directory name"
            case .answer(let what): "the origin's answer has \(what)"
            case .notCommitted: "no overlay entry was written (a write error, or a shared fetch that keeps nothing)"
            }
        }
    }

    /// Whether the URL cost no origin request.
    public var costNothing: Bool {
        switch self {
        case .inPackage, .inOverlay: true
        case .kept, .notKept, .failed: false
        }
    }

    /// Whether prefetching the URL failed.
    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }

    /// One line: `in package app 1.0.0`, `in the overlay`, `fetched and kept`,
    /// `fetched, not kept: …`, `failed: …`.
    public var description: String {
        switch self {
        case .inPackage(let name, let version): "in package \(name) \(version)"
        case .inOverlay: "in the overlay"
        case .kept: "fetched and kept"
        case .notKept(let reason): "fetched, not kept: \(reason)"
        case .failed(let error): "failed: \(error.message)"
        }
    }
}
