/// Turning a request's raw path into a safe, decoded path inside a version directory.
package enum RequestPath {
    /// Percent-decodes `raw` exactly once and refuses anything that could leave
    /// the directory it will be opened under: `.` or `..` segments (also when
    /// encoded, `%2e%2e`), an encoded `/` (`%2f`), backslashes raw or encoded,
    /// NUL and other control bytes, malformed escapes and invalid UTF-8.
    /// The result starts with `/`.
    package static func decode(_ raw: Substring) throws(PkgError) -> String {
        if raw.utf8.withContiguousStorageIfAvailable(isPlain) == true { return String(raw) }
        let utf8 = raw.utf8
        guard utf8.first == UInt8(ascii: "/") else { throw refusal(raw, "does not start with /") }
        // Fast path: nothing to decode.
        var needsDecoding = false
        for byte in utf8 {
            if byte == UInt8(ascii: "%") { needsDecoding = true; continue }
            if isControl(byte) || byte == UInt8(ascii: "\\") { throw refusal(raw, "has a control byte or backslash") }
        }
        let decoded: String
        if !needsDecoding {
            decoded = String(raw)
        } else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count)
            var index = utf8.startIndex
            while index != utf8.endIndex {
                let byte = utf8[index]
                if byte == UInt8(ascii: "%") {
                    let first = utf8.index(after: index)
                    guard first != utf8.endIndex else { throw refusal(raw, "has a malformed escape") }
                    let second = utf8.index(after: first)
                    guard second != utf8.endIndex, let high = hexDigitValue(utf8[first]), let low = hexDigitValue(utf8[second]) else {
                        throw refusal(raw, "has a malformed escape")
                    }
                    let value = high << 4 | low
                    if value < 0x20 || value == 0x7f || value == UInt8(ascii: "/") || value == UInt8(ascii: "\\") {
                        throw refusal(raw, "has an encoded separator or control byte")
                    }
                    bytes.append(value)
                    index = utf8.index(after: second)
                } else {
                    bytes.append(byte)
                    index = utf8.index(after: index)
                }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw refusal(raw, "is not UTF-8") }
            decoded = text
        }
        // No "." or ".." segment.
        var segmentLength = 0
        var dots = 0
        for byte in decoded.utf8 {
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0, segmentLength == dots { throw refusal(raw, "has a . or .. segment") }
                segmentLength = 0
                dots = 0
            } else {
                segmentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        if segmentLength > 0, segmentLength == dots { throw refusal(raw, "has a . or .. segment") }
        return decoded
    }

    /// Whether `path` is usable as it is: it starts with `/` and has no escape, control
    /// byte, backslash, `.` or `..` segment (the usual path, checked in one pass).
    private static func isPlain(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard path.first == UInt8(ascii: "/") else { return false }
        var segmentLength = 0
        var dots = 0
        for byte in path {
            if isControl(byte) || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "%") { return false }
            if byte == UInt8(ascii: "/") {
                if segmentLength > 0, segmentLength == dots { return false }
                segmentLength = 0
                dots = 0
            } else {
                segmentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return !(segmentLength > 0 && segmentLength == dots)
    }

    /// Percent-encodes a decoded path for a URL: every byte but `/` and RFC 3986's unreserved ones.
    package static func encode(_ path: String) -> String {
        var encoded = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + [byte].hexString.uppercased()
            }
        }
        return encoded
    }

    /// Refuses a query (still encoded, without `?`) holding a control byte: the query
    /// goes to the origin as it came, and a NUL would cut the URL libcurl reads.
    package static func checkQuery(_ query: Substring) throws(PkgError) {
        guard query.utf8.contains(where: isControl) else { return }
        throw PkgError(.invalidArgument, "refused query '\(String(query).escapedForMessage)': has a control byte")
    }

    /// A C0 control byte (NUL included) or DEL.
    @inline(__always)
    static func isControl(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x7f }

    static func refusal(_ raw: Substring, _ reason: String) -> PkgError {
        PkgError(.invalidArgument, "refused path '\(String(raw).escapedForMessage)': \(reason)")
    }

    /// Whether `host` is safe as one directory name of the overlay:
    /// letters, digits, `.`, `-`, `:` (a port), `[`/`]` (IPv6), not starting with `.`.
    static func isSafeHost(_ host: String) -> Bool {
        guard let first = host.utf8.first, first != UInt8(ascii: "."), host.utf8.count <= 255 else { return false }
        return host.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"),
                 UInt8(ascii: "_"):
                return true
            default:
                return false
            }
        }
    }
}
