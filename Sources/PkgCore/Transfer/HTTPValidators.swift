/// The cache validators of an HTTP response, stored with what was fetched so the next
/// request can be conditional (`If-None-Match` / `If-Modified-Since`).
public struct HTTPValidators: Codable, Sendable, Hashable {
    /// The `ETag` header, quotes and any `W/` prefix included, as the origin sent it.
    public var etag: String?
    /// The `Last-Modified` header, as the origin sent it.
    public var lastModified: String?

    /// Creates validators; both are optional.
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when neither validator is present, so a request cannot be made conditional.
    public var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The validator to send as `If-Range` when resuming: a strong ETag, else Last-Modified.
    var ifRangeValue: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
