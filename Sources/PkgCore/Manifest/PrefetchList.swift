import Glibc

/// URLs to fetch into a device's overlay ahead of use: a release's ``ManifestEntry/prefetch``,
/// `pack --prefetch FILE` and `pkgctl prefetch --from FILE`.
///
/// A URL must be what the resolver's requests look like, `SCHEME://HOST/PATH[?QUERY]`: ASCII
/// without spaces or control characters (percent-encode the rest), no credentials, no
/// fragment, a host that can name an overlay directory, a path the resolver accepts. It need
/// not be under a route of the package: what a page loads from other hosts (a CDN, an API
/// host) is what an offline device lacks.
///
/// A list file has one URL a line; blank lines and lines starting with `#` are skipped.
public enum PrefetchList {
    /// Most URLs in one list.
    public static let maximumCount = 1000
    /// Most bytes of one URL.
    public static let maximumURLLength = 2048

    /// Why `url` is no URL to prefetch, in a few words; nil when it is one.
    public static func refusal(of url: String) -> String? {
        let bytes = url.utf8
        guard (1...maximumURLLength).contains(bytes.count) else { return "must be 1 to \(maximumURLLength) bytes" }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            return "must be ASCII without spaces or control characters (percent-encode the rest)"
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), let first = bytes.first, isLetter(first),
              bytes[..<colon].allSatisfy({ isLetter($0) || isDigit($0) || "+-.".utf8.contains($0) }),
              bytes[colon...].starts(with: "://".utf8)
        else { return "must be SCHEME://HOST/PATH" }
        guard !bytes.contains(UInt8(ascii: "#")) else { return "must have no fragment" }
        let authority = url[bytes.index(colon, offsetBy: 3)...].prefix { $0 != "/" && $0 != "?" }
        guard !authority.contains("@") else { return "must carry no credentials" }
        guard RequestPath.isSafeHost(authority.lowercased()) else {
            return "host must be letters, digits, '.', '-', '_' and a port"
        }
        do {
            let request = ResourceRequest(url: url)
            _ = try RequestPath.decode(request.rawPath)
            try RequestPath.checkQuery(request.query)
        } catch {
            return "is refused by the resolver: \(error.message)"
        }
        return nil
    }

    /// Why `urls` is no list to prefetch (too long, a URL refused, one listed twice); nil when it is one.
    public static func refusal(of urls: [String]) -> String? {
        guard urls.count <= maximumCount else { return "lists \(urls.count) URLs, more than \(maximumCount)" }
        var seen = Set<String>()
        for url in urls {
            if let reason = refusal(of: url) { return "URL '\(url.escapedForMessage)' \(reason)" }
            guard seen.insert(url).inserted else { return "lists '\(url.escapedForMessage)' twice" }
        }
        return nil
    }

    /// The URLs of the list file at `path`; throws one line naming the file and the line of
    /// the first URL refused, a file past the bounds, or one that cannot be read.
    public static func read(_ path: String) throws -> [String] {
        let limit = maximumCount * (maximumURLLength + 1) + 64 * 1024
        guard let bytes = try FileSystem.read(path, limit: limit) else {
            throw PkgError(.invalidArgument, "\(path.escapedForMessage): no such file")
        }
        guard bytes.count <= limit else {
            throw PkgError(.invalidArgument, "\(path.escapedForMessage): larger than \(limit) bytes, too large for a prefetch list")
        }
        var urls: [String] = []
        var seen = Set<String>()
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let url = String(decoding: line, as: UTF8.self).trimmingWhitespace()
            if url.isEmpty || url.hasPrefix("#") { continue }
            func fail(_ reason: String) -> PkgError {
                PkgError(.invalidArgument, "\(path.escapedForMessage) line \(number + 1): \(reason)")
            }
            if let reason = refusal(of: url) { throw fail("URL '\(url.escapedForMessage)' \(reason)") }
            guard seen.insert(url).inserted else { throw fail("'\(url.escapedForMessage)' is listed twice") }
            guard urls.count < maximumCount else { throw fail("more than \(maximumCount) URLs") }
            urls.append(url)
        }
        return urls
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
