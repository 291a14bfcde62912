/// A response header the publisher declares for some files of a package
/// (`pack --header 'GLOB: Name: value'`), e.g. `Cross-Origin-Opener-Policy: same-origin`
/// for an app that needs `crossOriginIsolated`, or a `Content-Security-Policy`. The
/// resolver and `pkgctl serve` add it to those files' answers alike.
public struct PackageHeader: Codable, Sendable, Hashable {
    /// Which files: an `fnmatch` glob over the path in the bundle (`*` also crosses `/`).
    public var files: String
    /// The field name.
    public var name: String
    /// The field value.
    public var value: String

    /// A header for the files `files` matches.
    public init(files: String, name: String, value: String) {
        self.files = files
        self.name = name
        self.value = value
    }

    /// Fields the server itself writes from the file, its framing or its connection:
    /// a package may not set them (their meaning would be lost or contradicted).
    static let serverOwned: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range", "accept-ranges", "content-type",
        "date", "etag", "last-modified", "cache-control", "vary", "location", "x-pkg-source",
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
    ]

    /// Parses `GLOB: Name: value` as `pack --header` takes it; nil when it is not so shaped.
    public init?(argument: String) {
        // The glob ends at the first ": " (a glob may hold a colon, but not a colon and a space).
        var search = argument[...]
        var globEnd: String.Index?
        while let colon = search.firstIndex(of: ":") {
            let next = argument.index(after: colon)
            if next < argument.endIndex, argument[next] == " " {
                globEnd = colon
                break
            }
            search = argument[next...]
        }
        guard let globEnd else { return nil }
        let rest = argument[argument.index(globEnd, offsetBy: 2)...]
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        files = String(argument[..<globEnd])
        name = String(rest[..<colon])
        value = String(rest[rest.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
    }

    /// Why the header cannot be served, or nil when it can.
    func refusal() -> String? {
        guard ManifestEntry.isValidGlob(files) else { return "files '\(files.escapedForMessage)' is not a relative glob" }
        let tokenCharacters = "!#$%&'*+-.^_`|~"
        guard !name.isEmpty, name.utf8.count <= 128, name.unicodeScalars.allSatisfy({
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || tokenCharacters.unicodeScalars.contains($0))
        }) else { return "'\(name.escapedForMessage)' is not a header name" }
        guard !Self.serverOwned.contains(name.lowercased()) else {
            return "\(name) is written by the server and cannot be set by a package"
        }
        guard value.utf8.count <= 4096, !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7f }) else {
            return "\(name): the value must be at most 4096 bytes without control characters"
        }
        return nil
    }
}
