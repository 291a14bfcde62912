import NIOHTTP1

/// Turns an HTTP request target into the custom-scheme URL the resolver takes.
enum RequestTarget {
    /// - origin form `/app/x.js?v=1` → `SCHEME://DEFAULT-HOST/app/x.js?v=1` (else the Host header's host);
    /// - absolute form `http://www.example.com/app/` (a browser using a proxy) → `SCHEME://www.example.com/app/`.
    /// Returns nil for targets that name no resource (`*`, authority form, no host).
    static func resourceURL(for head: HTTPRequestHead, scheme: String, defaultHost: String?) -> String? {
        let uri = head.uri
        if uri.hasPrefix("/") {
            guard let host = defaultHost ?? head.headers.first(name: "Host"), !host.isEmpty else { return nil }
            return scheme + "://" + host + uri
        }
        for prefix in ["http://", "https://"] where uri.utf8.count > prefix.utf8.count && hasPrefixIgnoringCase(uri, prefix) {
            let rest = uri.dropFirst(prefix.count)
            guard let first = rest.first, first != "/" else { return nil }
            return scheme + "://" + rest
        }
        return nil
    }

    private static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        text.prefix(prefix.count).lowercased() == prefix
    }
}
