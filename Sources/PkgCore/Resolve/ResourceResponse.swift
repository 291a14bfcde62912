/// The head of an answer: status and headers, like `HTTPURLResponse`.
public struct ResourceResponse: Sendable {
    /// HTTP status (200, 206, 304, 416, or whatever the origin said).
    public var status: Int
    /// Headers in order; origin headers come back unchanged except the hop-by-hop
    /// ones (`Connection`, `Keep-Alive`, `Transfer-Encoding`), which the server re-frames.
    public var headers: [(name: String, value: String)]

    /// A response head.
    public init(status: Int, headers: [(name: String, value: String)] = []) {
        self.status = status
        self.headers = headers
    }

    /// The first value of header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        for field in headers where asciiCaseInsensitiveEqual(field.name, name) { return field.value }
        return nil
    }

    /// Every value of header `name` (e.g. several `Set-Cookie`).
    public func headers(_ name: String) -> [String] {
        headers.filter { asciiCaseInsensitiveEqual($0.name, name) }.map(\.value)
    }

    /// `Content-Length` as a number, when present and valid.
    public var contentLength: Int64? { header("Content-Length").flatMap { Int64($0) } }
}
