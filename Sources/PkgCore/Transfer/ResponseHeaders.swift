/// The headers of the last response of a transfer, collected line by line from libcurl's
/// header callback. A status line starts a new response (a redirect, a `100 Continue`),
/// so only the final response's headers remain.
struct ResponseHeaders {
    private(set) var fields: [(name: String, value: String)] = []

    /// Takes one header line as libcurl delivers it, CRLF included.
    mutating func take(_ line: String) {
        let line = String(Substring(line).trimmingSpaces)
        if line.hasPrefix("HTTP/") {
            fields.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).lowercased()
        let value = String(line[line.index(after: colon)...].trimmingSpaces)
        fields.append((name, value))
    }

    /// The first value of the header `name` (case-insensitive), if present.
    subscript(name: String) -> String? {
        let name = name.lowercased()
        return fields.first { $0.name == name }?.value
    }

    /// The response's `ETag` and `Last-Modified`.
    var validators: HTTPValidators {
        HTTPValidators(etag: self["etag"], lastModified: self["last-modified"])
    }

    /// The first byte position of a `Content-Range: bytes FIRST-LAST/LENGTH` header.
    var contentRangeStart: UInt64? {
        guard let value = self["content-range"], value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return UInt64(spec[..<dash].trimmingSpaces)
    }
}

