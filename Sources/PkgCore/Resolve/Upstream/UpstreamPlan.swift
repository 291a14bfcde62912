/// What to ask the origin for one request.
struct UpstreamPlan: Sendable {
    var url: String
    var method: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    var resourceClass: ResourceClass
    /// Key under which concurrent identical misses share this fetch; nil = not shared.
    var coalescingKey: String?
    /// The overlay entry a complete, cacheable answer is written to; nil = never written through.
    var overlayKey: String?
    /// The counters of the package version whose route the request is under; nil = none.
    var signals: ServingSignalCounter?

    /// Request headers (lower case) a shared fetch does not forward: every task sharing it and
    /// the overlay get one full, identity-coded 200, whatever each request's own validators,
    /// range condition and codings were.
    static let droppedFromSharedFetches: Set<String> = [
        "accept-encoding", "if-none-match", "if-modified-since", "if-range",
    ]
}
