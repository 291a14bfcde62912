/// A content coding a package may hold a file in beside the file itself:
/// `X.br` (brotli) or `X.gz` (gzip) next to `X`, written by `pkgctl pack
/// --precompress` or by the site's own build.
public enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    case brotli = "br"
    case gzip

    /// The suffix of the encoded file's name: `.br` or `.gz`.
    public var fileSuffix: String {
        switch self {
        case .brotli: return ".br"
        case .gzip: return ".gz"
        }
    }

    /// The coding a file name's suffix says its bytes are in; nil for other names.
    public init?(ofEncodedName name: some StringProtocol) {
        if name.hasSuffix(".br") { self = .brotli } else if name.hasSuffix(".gz") { self = .gzip } else { return nil }
    }

    /// The coding to answer with, of those `available`, for an `Accept-Encoding`
    /// header (RFC 9110 §12.5.3): the one with the highest q-value above 0,
    /// brotli on a tie (it is the smaller); `*` stands for codings not named.
    /// Nil (identity) when the header is absent or allows none of them.
    ///
    /// One pass over the header's bytes, with no allocation: it runs for every request
    /// for a file that has siblings (q-values are read in thousandths, as RFC 9110 writes
    /// them; a malformed one leaves the item at 1).
    public static func preferred(for acceptEncoding: String?, among available: Set<ContentCoding>) -> ContentCoding? {
        guard var header = acceptEncoding, !available.isEmpty else { return nil }
        // Thousandths; -1: not named.
        var brotli = -1, gzip = -1, wildcard = -1
        header.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                var tokenEnd = index
                while tokenEnd < end, bytes[tokenEnd] != UInt8(ascii: ";") { tokenEnd += 1 }
                var quality = 1000
                var parameter = tokenEnd
                while parameter < end {
                    var parameterEnd = parameter + 1
                    while parameterEnd < end, bytes[parameterEnd] != UInt8(ascii: ";") { parameterEnd += 1 }
                    let (first, last) = trimmed(bytes, parameter + 1, parameterEnd)
                    if last - first >= 3, bytes[first] | 0x20 == UInt8(ascii: "q"), bytes[first + 1] == UInt8(ascii: "="),
                       let value = thousandths(bytes, first + 2, last) {
                        quality = value
                    }
                    parameter = parameterEnd
                }
                let (first, last) = trimmed(bytes, index, tokenEnd)
                let token = UnsafeBufferPointer(rebasing: bytes[first..<last])
                if token.matchesLowercase("br") {
                    brotli = quality
                } else if token.matchesLowercase("gzip") || token.matchesLowercase("x-gzip") {
                    gzip = quality
                } else if last - first == 1, bytes[first] == UInt8(ascii: "*") {
                    wildcard = quality
                }
                index = end + 1
            }
        }
        let brotliQuality = available.contains(.brotli) ? (brotli >= 0 ? brotli : max(wildcard, 0)) : 0
        let gzipQuality = available.contains(.gzip) ? (gzip >= 0 ? gzip : max(wildcard, 0)) : 0
        if brotliQuality > 0, brotliQuality >= gzipQuality { return .brotli }
        return gzipQuality > 0 ? .gzip : nil
    }

    /// `bytes[from..<to]` without leading and trailing spaces and tabs, as bounds.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (Int, Int) {
        var first = from, last = to
        while first < last, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
        while last > first, bytes[last - 1] == UInt8(ascii: " ") || bytes[last - 1] == UInt8(ascii: "\t") { last -= 1 }
        return (first, last)
    }

    /// A q-value (`0`, `0.5`, `1.000`, `.5`) in thousandths, clamped to 0...1000 (a negative one
    /// is 0); nil when malformed.
    private static func thousandths(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Int? {
        if bytes[from] == UInt8(ascii: "-") { return 0 }  // below 0: refused, as a q of 0
        var index = from, whole = 0, digits = 0
        while index < to, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            whole = min(whole * 10 + Int(bytes[index] - UInt8(ascii: "0")), 1000)
            index += 1
            digits += 1
        }
        var fraction = 0, scale = 100
        if index < to, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < to, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                fraction += Int(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
                digits += 1
            }
        }
        guard index == to, digits > 0 else { return nil }
        return min(whole * 1000 + fraction, 1000)
    }
}

private extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes, ASCII letters folded to lower case, are `literal` (lower case).
    func matchesLowercase(_ literal: StaticString) -> Bool {
        guard count == literal.utf8CodeUnitCount else { return false }
        for index in 0..<count {
            let byte = self[index]
            let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            if folded != literal.utf8Start[index] { return false }
        }
        return true
    }
}
