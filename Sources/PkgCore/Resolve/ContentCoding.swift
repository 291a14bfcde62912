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
    public static func preferred(for acceptEncoding: String?, among available: Set<ContentCoding>) -> ContentCoding? {
        guard let acceptEncoding, !available.isEmpty else { return nil }
        var named: [ContentCoding: Double] = [:]
        var wildcard: Double?
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let token = parts.first?.trimmingSpaces.lowercased(), !token.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces
                if pair.lowercased().hasPrefix("q="), let value = Double(pair.dropFirst(2)) {
                    quality = min(max(value, 0), 1)
                }
            }
            switch token {
            case "br": named[.brotli] = quality
            case "gzip", "x-gzip": named[.gzip] = quality
            case "*": wildcard = quality
            default: break
            }
        }
        var best: (coding: ContentCoding, quality: Double)?
        for coding in ContentCoding.allCases where available.contains(coding) {
            let quality = named[coding] ?? wildcard ?? 0
            if quality > 0, quality > (best?.quality ?? 0) { best = (coding, quality) }
        }
        return best?.coding
    }
}
