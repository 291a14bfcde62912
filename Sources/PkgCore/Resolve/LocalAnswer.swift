/// A local answer, ready for a server's fast path: the response head and, when
/// there is a body, the file and the byte range of it to send (with
/// `sendfile(2)` / NIO `FileRegion`, or ``LocalFile/read(into:at:)`` for a file
/// held in memory).
///
/// ```swift
/// if let answer = try resolver.answerLocally(request) {
///     write(answer.response)
///     if let file = answer.file {
///         if file.isInMemory { /* file.read(into:at:) the range */ }
///         else { sendfile(socket, file.descriptor, answer.range) }
///     }
/// }
/// ```
public struct LocalAnswer: Sendable {
    /// Status 200, 206, 304 or 416 (or 301 with `Location` for a folder asked for
    /// without its slash) with `Content-Type`, `Content-Length`, `ETag`,
    /// `Last-Modified`, `Cache-Control` (``CachePolicy``), `Accept-Ranges` (and
    /// `Content-Range` for 206/416). A server adds `Date`.
    public var response: ResourceResponse
    /// The file to send from, or nil when the answer has no body (304, 416, HEAD).
    public var file: LocalFile?
    /// The bytes of `file` to send; empty when there is no body.
    public var range: Range<Int64>
    /// Where the file came from.
    public var source: Source

    /// Where a local answer came from.
    public enum Source: Sendable, Hashable {
        /// The active version of an installed package.
        case package(name: String, version: String)
        /// The write-through overlay (fetched under `version` of `package`, if routed).
        case overlay(package: String?, version: String?)
    }

    /// Builds the answer for `request` from an open file: If-None-Match, or
    /// without it If-Modified-Since (304); a single Range (206 / 416; suffix
    /// `bytes=-N` is the last N bytes; several ranges or a failed If-Range → the
    /// whole file); HEAD without a body. A file in a content `coding` (a `.br` or
    /// `.gz` sibling) gets `Content-Encoding`, and ranges count its encoded bytes;
    /// `vary` (the request headers that chose this file: see ``varyValue(accept:encoding:)``)
    /// goes out as `Vary` when not empty. `servedPath` is the package path asked for when
    /// `file` is an image variant of it (its caching follows that name). `declared` are the
    /// headers the publisher declared for the file, added to 200 and 206 answers.
    static func make(file: LocalFile, request: ResourceRequest, contentType: String, source: Source,
                     coding: ContentCoding? = nil, vary: String = "", servedPath: String? = nil,
                     markedImmutable: Bool = false, declared: [(name: String, value: String)] = []) -> LocalAnswer {
        let size = file.size
        let cacheControl: String
        switch source {
        case .package:
            let path = servedPath ?? coding.map { String(file.relativePath.dropLast($0.fileSuffix.utf8.count)) }
                ?? file.relativePath
            cacheControl = markedImmutable ? CachePolicy.immutable : CachePolicy.forPackageFile(path)
        case .overlay: cacheControl = CachePolicy.revalidate
        }
        if isNotModified(file, request) {
            var headers: [(name: String, value: String)] = [
                ("ETag", file.etag), ("Last-Modified", file.lastModified), ("Cache-Control", cacheControl),
            ]
            if !vary.isEmpty { headers.append(("Vary", vary)) }
            return LocalAnswer(response: ResourceResponse(status: 304, headers: headers), file: nil, range: 0..<0,
                               source: source)
        }
        var status = 200
        var range: Range<Int64> = 0..<size
        if let rangeHeader = request.header("Range"),
           request.header("If-Range").map({ $0 == file.etag }) ?? true {
            switch parseRange(rangeHeader, size: size) {
            case .whole: break
            case .unsatisfiable:
                return LocalAnswer(response: ResourceResponse(status: 416, headers: [
                    ("Content-Range", "bytes */\(size)"), ("Content-Length", "0"), ("ETag", file.etag),
                    ("Accept-Ranges", "bytes"),
                ]), file: nil, range: 0..<0, source: source)
            case .range(let part):
                status = 206
                range = part
            }
        }
        var headers: [(name: String, value: String)] = [
            ("Content-Type", contentType),
            ("Content-Length", String(range.count)),
            ("ETag", file.etag),
            ("Last-Modified", file.lastModified),
            ("Cache-Control", cacheControl),
            ("Accept-Ranges", "bytes"),
        ]
        if let coding { headers.append(("Content-Encoding", coding.rawValue)) }
        if !vary.isEmpty { headers.append(("Vary", vary)) }
        headers += declared
        if status == 206 {
            headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"))
        }
        let hasBody = request.method != "HEAD" && !range.isEmpty
        return LocalAnswer(response: ResourceResponse(status: status, headers: headers),
                           file: hasBody ? file : nil, range: hasBody ? range : 0..<0, source: source)
    }

    /// The `Vary` value of a package file chosen by `Accept` (the single-page-app fallback, an
    /// image variant) and/or by `Accept-Encoding` (it has `.br`/`.gz` siblings); empty for neither.
    static func varyValue(accept: Bool, encoding: Bool) -> String {
        accept ? (encoding ? "Accept, Accept-Encoding" : "Accept") : (encoding ? "Accept-Encoding" : "")
    }

    /// 301 to `location` with no body: a folder asked for without its trailing slash.
    /// `no-store`: it costs nothing to answer again and must follow an update that turns
    /// the folder into a file (`no-cache` without a validator would contradict itself,
    /// and nginx's bare 301 leaves caches to guess a lifetime).
    static func redirect(to location: String, source: Source) -> LocalAnswer {
        LocalAnswer(response: ResourceResponse(status: 301, headers: [
            ("Location", location), ("Content-Length", "0"), ("Cache-Control", "no-store"),
        ]), file: nil, range: 0..<0, source: source)
    }

    /// RFC 9110 §13.2.2: If-None-Match decides when present; otherwise If-Modified-Since.
    private static func isNotModified(_ file: LocalFile, _ request: ResourceRequest) -> Bool {
        if let match = request.header("If-None-Match") { return etagListMatches(match, file.etag) }
        guard let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse) else { return false }
        return file.modified <= since
    }

    enum RangeRequest: Equatable {
        case whole
        case range(Range<Int64>)
        case unsatisfiable
    }

    /// Parses one `bytes=` range against `size`. Malformed or multiple ranges → `.whole`.
    static func parseRange(_ header: String, size: Int64) -> RangeRequest {
        var text = Substring(header).drop(while: { $0 == " " })
        guard text.hasPrefix("bytes=") else { return .whole }
        text = text.dropFirst(6)
        if text.contains(",") { return .whole }
        let trimmed = text.trimmingSpaces
        guard let dash = trimmed.firstIndex(of: "-") else { return .whole }
        let first = trimmed[..<dash].trimmingSpaces, last = trimmed[trimmed.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            guard let count = Int64(last), count >= 0 else { return .whole }
            if count == 0 || size == 0 { return .unsatisfiable }
            return .range(max(0, size - count)..<size)
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        var end = size - 1
        if !last.isEmpty {
            guard let value = Int64(last), value >= start else { return .whole }
            end = min(value, size - 1)
        }
        if start >= size { return .unsatisfiable }
        return .range(start..<(end + 1))
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison) or is `*`.
    static func etagListMatches(_ list: String, _ etag: String) -> Bool {
        let opaque = etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
        for item in list.split(separator: ",") {
            var tag = item.trimmingSpaces
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            if tag == opaque { return true }
        }
        return false
    }
}
