import NIOHTTP1

/// RFC 9112 §3.2's rule for a request's `Host` field: an HTTP/1.1 request without one, a
/// request with more than one, or one whose value is no `uri-host [":" port]` is answered 400
/// (as nginx does), whatever the request target or `--default-host` would make of it. Two
/// `Host` lines are how a request is smuggled past a proxy that reads the other one.
package enum HostField {
    /// Why `head` must be refused, in one line; nil when its `Host` field is acceptable.
    package static func refusal(for head: HTTPRequestHead) -> String? {
        let values = head.headers["Host"]  // every field of that name, any case, one value each
        if values.count > 1 { return "request has \(values.count) Host header fields; RFC 9112 allows one" }
        guard let value = values.first else {
            let isHTTP11OrLater = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
            return isHTTP11OrLater ? "HTTP/1.1 request without a Host header field" : nil
        }
        return isValid(value) ? nil : "Host header field '\(value.escapedForMessage)' is not a host and port"
    }

    /// `uri-host [":" port]` (RFC 3986): a reg-name of unreserved, sub-delims and %XX, or an
    /// IP literal in brackets, then digits after a colon. Empty is allowed (a target with no authority).
    private static func isValid(_ value: String) -> Bool {
        var host = Substring(value)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            let literal = host[host.index(after: host.startIndex)..<close]
            guard !literal.isEmpty, literal.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            host = host[host.index(after: close)...]
            return host.isEmpty || isPort(host)
        }
        if let colon = host.lastIndex(of: ":") {
            guard isPort(host[colon...]) else { return false }
            host = host[..<colon]
        }
        return host.utf8.allSatisfy(isRegNameByte)
    }

    /// `":" *DIGIT`.
    private static func isPort(_ text: Substring) -> Bool {
        text.first == ":" && text.utf8.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// unreserved / sub-delims / "%" (of pct-encoded).
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=%".utf8.contains(byte)
        }
    }
}
