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

    /// Whether `https://` + `host` (`uri-host [":" port]`, as a request names it) is this
    /// server's own address: `localhost`, a loopback address or `bindHost`, at `port` (443 when
    /// `host` names none), the port the request came in on.
    package static func isOwnAddress(_ host: String, bindHost: String, port: Int) -> Bool {
        var name = Substring(host.lowercased()), named = 443
        if name.hasPrefix("[") {
            let close = name.firstIndex(of: "]") ?? name.endIndex
            named = Int(name[close...].dropFirst(2)) ?? 443
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.firstIndex(of: ":"), name.filter({ $0 == ":" }).count == 1 {
            named = Int(name[colon...].dropFirst()) ?? 443
            name = name[..<colon]
        }
        let bound = bindHost.lowercased().trimmingBrackets
        let isLoopback = name == "localhost" || name.hasSuffix(".localhost") || name == "::1"
            || (name.hasPrefix("127.") && name.allSatisfy { $0.isNumber || $0 == "." })
        return named == port && (isLoopback || (!bound.isEmpty && name == bound))
    }

    /// `uri-host [":" port]` (RFC 3986): a reg-name of unreserved, sub-delims and %XX, or an
    /// IP literal in brackets, then digits after a colon. Empty is allowed (a target with no authority).
    /// Read as contiguous bytes: every request passes here.
    private static func isValid(_ value: String) -> Bool {
        var value = value
        return value.withUTF8(isValid(bytes:))
    }

    private static func isValid(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[1..<close]
            guard !literal.isEmpty, literal.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            let rest = bytes[(close + 1)...]
            return rest.isEmpty || isPort(rest)
        }
        var hostEnd = bytes.endIndex
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            guard isPort(bytes[colon...]) else { return false }
            hostEnd = colon
        }
        return bytes[..<hostEnd].allSatisfy(isRegNameByte)
    }

    /// `":" *DIGIT`.
    private static func isPort(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        text.first == UInt8(ascii: ":") && text.dropFirst().allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// unreserved / sub-delims / "%" (of pct-encoded).
    private static func isRegNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
             UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }
}

private extension String {
    /// `::1` for `[::1]`.
    var trimmingBrackets: Substring {
        hasPrefix("[") && hasSuffix("]") ? dropFirst().dropLast() : Substring(self)
    }
}
