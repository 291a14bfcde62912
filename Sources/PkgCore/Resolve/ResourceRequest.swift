/// A request handed to the ``Resolver``: a custom-scheme URL such as
/// `app://www.example.com/app/index.html?id=1`, its method, headers and body.
///
/// The URL is split by hand (no Foundation `URL`), once, when the request is made;
/// a server that already has the host and the request target apart passes them
/// as they are (``init(scheme:host:target:method:headers:body:)``): the local-hit
/// path is hot.
///
/// ```swift
/// let request = ResourceRequest(url: "app://www.example.com/app/index.html",
///                               headers: [("Accept", "text/html,*/*;q=0.8")])
/// ```
public struct ResourceRequest: Sendable {
    /// The whole URL: as received, or made from the parts it was given as.
    public var url: String {
        if let givenURL { return givenURL }
        return query.isEmpty ? String(concatenating: scheme, "://", host[...], rawPath)
            : String(concatenating: scheme, "://", host[...], rawPath, "?", query)
    }
    private let givenURL: String?
    /// The HTTP method, upper case (`GET`, `POST`, ...).
    public var method: String
    /// Request headers in order; names compare case-insensitively.
    public var headers: [(name: String, value: String)]
    /// The request body (for POST, PUT, ...); forwarded to the origin intact.
    public var body: [UInt8]

    /// The URL's scheme, lower case (`app`).
    public let scheme: Substring
    /// The authority's host with its port when one was given, lower case (`www.example.com`, `localhost:8080`).
    public let host: String
    /// The path as received, still percent-encoded, starting with `/` (`/app/index.html`).
    public let rawPath: Substring
    /// The query without `?`, still encoded; empty when absent.
    public let query: Substring

    /// Splits `url` into scheme, host, path and query; a fragment is dropped.
    public init(url: String, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        givenURL = url
        self.method = method
        self.headers = headers
        self.body = body
        let utf8 = url.utf8
        var index = utf8.startIndex
        // scheme
        var schemeEnd = utf8.startIndex
        var hasScheme = false
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: ":") { schemeEnd = index; hasScheme = true; break }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            index = utf8.index(after: index)
        }
        var rest = utf8.startIndex
        if hasScheme {
            scheme = Substring(url[utf8.startIndex..<schemeEnd])
            rest = utf8.index(after: schemeEnd)
        } else {
            scheme = ""
        }
        // authority
        var hostText = Substring("")
        if utf8[rest...].starts(with: "//".utf8) {
            let start = utf8.index(rest, offsetBy: 2)
            var end = start
            while end != utf8.endIndex {
                let byte = utf8[end]
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
                end = utf8.index(after: end)
            }
            hostText = url[start..<end]
            if let at = hostText.utf8.lastIndex(of: UInt8(ascii: "@")) {
                hostText = hostText[hostText.utf8.index(after: at)...]
            }
            rest = end
        }
        (rawPath, query) = Self.splitTarget(url[rest...])
        host = Self.lowercased(hostText)
    }

    /// The request for `scheme://host` + `target` without making and splitting that URL:
    /// `target` is in origin form (`/app/x.js?v=1`; a fragment is dropped) and `host` an
    /// authority's host and port, without user info (`www.example.com`, `localhost:8080`).
    /// Returns nil when `host` holds a character that ends an authority (`/`, `?`, `#`, `@`)
    /// or `target` does not start with `/`: split such a URL with ``init(url:method:headers:body:)``.
    public init?(scheme: String, host: String, target: String, method: String = "GET",
                 headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        guard target.utf8.first == UInt8(ascii: "/"), !host.utf8.contains(where: {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 == UInt8(ascii: "@")
        }) else { return nil }
        givenURL = nil
        self.method = method
        self.headers = headers
        self.body = body
        self.scheme = Substring(scheme)
        self.host = Self.lowercased(Substring(host))
        (rawPath, query) = Self.splitTarget(Substring(target))
    }

    /// The path (`/` when empty) and the query of what follows a URL's authority.
    private static func splitTarget(_ target: Substring) -> (path: Substring, query: Substring) {
        let utf8 = target.utf8
        var pathEnd = utf8.startIndex
        while pathEnd != utf8.endIndex {
            let byte = utf8[pathEnd]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            pathEnd = utf8.index(after: pathEnd)
        }
        let path = target[..<pathEnd]
        var query: Substring = ""
        if pathEnd != utf8.endIndex, utf8[pathEnd] == UInt8(ascii: "?") {
            let start = utf8.index(after: pathEnd)
            let end = utf8[start...].firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
            query = target[start..<end]
        }
        return (path.isEmpty ? "/" : path, query)
    }

    private static func lowercased(_ host: Substring) -> String {
        host.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? host.lowercased() : String(host)
    }

    /// The first value of the header `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        for field in headers where asciiCaseInsensitiveEqual(field.name, name) {
            return field.value
        }
        return nil
    }

    /// True for `GET` and `HEAD`.
    var isRead: Bool { method == "GET" || method == "HEAD" }

    /// Set on the requests of ``Resolver/prefetch(_:headers:concurrency:timeLimit:progress:)``: an
    /// explicit request to keep the answer, so an image is written through whatever
    /// ``ResolverConfiguration/writeThroughImages`` says.
    var isPrefetch = false
}
