import NIOHTTP1
import PkgCore

/// Turns an HTTP request into the custom-scheme request the resolver takes.
package enum RequestTarget {
    /// - origin form `/app/x.js?v=1` → `SCHEME://DEFAULT-HOST/app/x.js?v=1` (else the Host header's host),
    ///   made from its parts, with no URL string to split;
    /// - absolute form `http://www.example.com/app/` (a browser using a proxy) → `SCHEME://www.example.com/app/`.
    /// Returns nil for targets that name no resource (`*`, authority form, no host).
    package static func resourceRequest(for head: HTTPRequestHead, body: [UInt8], scheme: String,
                                defaultHost: String?) -> ResourceRequest? {
        let uri = head.uri
        let method = head.method.rawValue
        let headers = head.headers.map { (name: $0.name, value: $0.value) }
        if uri.utf8.first == UInt8(ascii: "/") {
            guard let host = defaultHost ?? head.headers.first(name: "Host"), !host.isEmpty else { return nil }
            // A host that would end the authority early is split as the URL it makes.
            return ResourceRequest(scheme: scheme, host: host, target: uri, method: method, headers: headers, body: body)
                ?? ResourceRequest(url: scheme + "://" + host + uri, method: method, headers: headers, body: body)
        }
        for prefix in ["http://", "https://"] where uri.utf8.count > prefix.utf8.count && hasPrefixIgnoringCase(uri, prefix) {
            // Bytes, not Characters: a combining mark after "//" or after the next "/" joins no Character to them.
            let rest = uri.utf8.dropFirst(prefix.utf8.count)
            guard let first = rest.first, first != UInt8(ascii: "/") else { return nil }
            return ResourceRequest(url: scheme + "://" + String(decoding: rest, as: UTF8.self), method: method,
                                   headers: headers, body: body)
        }
        return nil
    }

    /// Whether `text` starts with the bytes of the lower-case ASCII `prefix`, ignoring ASCII case.
    private static func hasPrefixIgnoringCase(_ text: String, _ prefix: String) -> Bool {
        text.utf8.count >= prefix.utf8.count && zip(text.utf8, prefix.utf8).allSatisfy { text, prefix in
            (text >= UInt8(ascii: "A") && text <= UInt8(ascii: "Z") ? text | 0x20 : text) == prefix
        }
    }
}
