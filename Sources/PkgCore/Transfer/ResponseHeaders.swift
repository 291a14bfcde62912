import FoundationEssentials

/// The head of the last response of a transfer, collected line by line from libcurl's
/// header callback. A status line starts a new response (a followed redirect, a
/// `100 Continue`), so only the last response's status and headers remain; lines after
/// a complete head (trailers) are ignored. Names keep their case.
package struct ResponseHeaders {
    /// The status code of the last status line; 0 before one arrived.
    package private(set) var status = 0
    package private(set) var fields: [(name: String, value: String)] = []
    /// Whether the blank line ending a non-1xx head has arrived (until a next status line).
    package private(set) var isComplete = false

    /// An empty head, before any line.
    package init() {}

    /// Takes one header line as libcurl delivers it, CRLF included.
    package mutating func take(_ line: String) {
        var text = Substring(line)
        while let last = text.utf8.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            text = text.dropLast()  // "\r\n" is one Character
        }
        if isComplete, !text.hasPrefix("HTTP/") { return }
        if text.isEmpty {
            if (100..<200).contains(status) {
                status = 0
                fields.removeAll()
            } else {
                isComplete = true
            }
        } else if text.hasPrefix("HTTP/") {
            let parts = text.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            fields.removeAll()
            isComplete = false
        } else if text.first == " " || text.first == "\t" {
            let continuation = text.trimmingSpaces  // an obsolete folded line
            if let last = fields.indices.last, !continuation.isEmpty {
                fields[last].value += fields[last].value.isEmpty ? String(continuation) : " " + continuation
            }
        } else if let colon = text.firstIndex(of: ":") {
            fields.append((String(text[..<colon]), String(text[text.index(after: colon)...].trimmingSpaces)))
        }
    }

    /// The first value of the header `name` (case-insensitive), if present.
    package subscript(name: String) -> String? {
        fields.first { asciiCaseInsensitiveEqual($0.name, name) }?.value
    }

    /// The response's `ETag` and `Last-Modified`; none when its `Last-Modified` is less
    /// than a second before its `Date` (or there is no `Date`). Such a resource may
    /// change again within the same second, and an ETag made of the modification time
    /// and size (nginx's) would then name two contents: RFC 9110 §8.8.2.2 does not
    /// count such a Last-Modified as a strong validator, and pkgctl does not count
    /// the ETag beside it either, so the next request is unconditional.
    var validators: HTTPValidators {
        let validators = HTTPValidators(etag: self["etag"], lastModified: self["last-modified"])
        guard let lastModified = validators.lastModified else { return validators }
        guard let modified = HTTPDate.parse(lastModified), let date = self["date"].flatMap(HTTPDate.parse),
              date - modified >= 1 else { return HTTPValidators() }
        return validators
    }

    /// Seconds a `Retry-After` header asks to wait (delta-seconds or an HTTP
    /// date, RFC 9110 §10.2.3); nil when absent or unreadable.
    package func retryAfter(now: Date) -> Double? {
        guard let value = self["retry-after"], !value.isEmpty else { return nil }
        if allASCIIDigits(value.utf8) {
            return Double(value) ?? .infinity  // too many digits to be a sane wait: longer than any cap
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(0, Double(date) - now.timeIntervalSince1970)
    }

    /// The first byte position of a `Content-Range: bytes FIRST-LAST/LENGTH` header.
    package var contentRangeStart: UInt64? {
        guard let value = self["content-range"], value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return UInt64(spec[..<dash].trimmingSpaces)
    }
}
