import FuzzSupport
import PkgCore

/// Range, If-Range, If-None-Match, If-Modified-Since (and Accept-Encoding) as the
/// resolver's local answer reads them, on real files of a fixture package. The first
/// byte picks the file and GET or HEAD; every following line is a `Name: value`
/// header. The answer is 200, 206, 304 or 416 as RFC 9110 has it for what it parsed:
/// a 206 range is non-empty and within the file, with a matching `Content-Range` and
/// `Content-Length`; a 304 needs a matching If-None-Match, or none and an
/// If-Modified-Since at or after the file's time; a 416 needs a Range.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConditionalHeaders(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    guard let selector = input.bytes.first else { return 0 }
    let paths = FixtureStore.demoFiles.keys.sorted()
    let path = paths[Int(selector) % paths.count]
    let method = selector & 0x80 == 0 ? "GET" : "HEAD"
    var headers: [(name: String, value: String)] = []
    for line in input.lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].drop(while: { $0 == " " }))))
    }
    let url = "app://www.example.com/app/" + RequestPath.encode(path)
    let request = ResourceRequest(url: url, method: method, headers: headers)
    guard let answer = (try? FixtureStore.resolver.answerLocally(request)) ?? nil else {
        fuzzCheck(false, "no local answer for \(url)")
        return 0
    }
    // The file as a plain GET (with the same Accept-Encoding, so the same representation) sees it.
    let plain = ResourceRequest(url: url, headers: headers.filter { $0.name.lowercased() == "accept-encoding" })
    guard let reference = (try? FixtureStore.resolver.answerLocally(plain)) ?? nil, reference.response.status == 200,
          let size = field(reference, "Content-Length").flatMap({ Int64($0) }), let etag = field(reference, "ETag"),
          let modified = field(reference, "Last-Modified").flatMap(HTTPDate.parse) else {
        fuzzCheck(false, "no plain answer for \(url)")
        return 0
    }
    let contentLength = field(answer, "Content-Length")
    switch answer.response.status {
    case 200:
        fuzzCheck(contentLength == String(size), "200 with Content-Length \(contentLength ?? "nil") for \(size) bytes")
        fuzzCheck(answer.range == (method == "GET" && size > 0 ? 0..<size : 0..<0), "200 with range \(answer.range) of \(size)")
    case 206:
        fuzzCheck(request.header("Range") != nil, "206 without Range")
        let contentRange = field(answer, "Content-Range") ?? ""
        let bounds = contentRange.dropFirst("bytes ".count).split(separator: "/").first?.split(separator: "-")
            .compactMap { Int64($0) } ?? []
        guard contentRange.hasPrefix("bytes "), contentRange.hasSuffix("/\(size)"), bounds.count == 2 else {
            fuzzCheck(false, "206 with Content-Range \(contentRange.debugDescription) for \(size) bytes")
            return 0
        }
        let range = bounds[0]..<(bounds[1] + 1)
        fuzzCheck(bounds[0] >= 0 && bounds[0] <= bounds[1] && bounds[1] < size, "206 range \(range) of \(size)")
        fuzzCheck(contentLength == String(range.count), "206 \(range) with Content-Length \(contentLength ?? "nil")")
        fuzzCheck(answer.range == (method == "GET" ? range : 0..<0), "206 \(range) sends \(answer.range)")
        if let ifRange = request.header("If-Range") { fuzzCheck(ifRange == etag, "206 for If-Range \(ifRange.debugDescription)") }
    case 304:
        fuzzCheck(answer.file == nil && answer.range.isEmpty, "304 with a body")
        if let match = request.header("If-None-Match") {
            let tags = match.split(separator: ",").map { item -> Substring in
                // Trimmed of what the server trims (space, tab, CR, LF; NIO refuses the last two).
                let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
                let tag = item.drop(while: blank).reversed().drop(while: blank)
                let text = Substring(String(tag.reversed()))
                return text.hasPrefix("W/") ? text.dropFirst(2) : text
            }
            fuzzCheck(tags.contains("*") || tags.contains(Substring(etag)), "304 for If-None-Match \(match.debugDescription), ETag \(etag)")
        } else {
            let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse)
            fuzzCheck(since.map { $0 >= modified } ?? false,
                      "304 for If-Modified-Since \(request.header("If-Modified-Since")?.debugDescription ?? "nil")")
        }
    case 416:
        fuzzCheck(request.header("Range") != nil, "416 without Range")
        fuzzCheck(field(answer, "Content-Range") == "bytes */\(size)", "416 Content-Range \(field(answer, "Content-Range") ?? "nil")")
        fuzzCheck(answer.file == nil, "416 with a body")
    default:
        fuzzCheck(false, "status \(answer.response.status)")
    }
    if answer.response.status == 200 || answer.response.status == 206 {
        fuzzCheck((answer.file != nil) == (method == "GET" && !answer.range.isEmpty), "body for \(method) \(answer.response.status)")
    }
    // The same request gets the same answer.
    if let again = (try? FixtureStore.resolver.answerLocally(request)) ?? nil {
        fuzzCheck(again.response.status == answer.response.status && again.range == answer.range, "a second answer differs")
    }
    return 0
}

/// The first value of response header `name` (case-insensitive).
private func field(_ answer: LocalAnswer, _ name: String) -> String? {
    answer.response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
}

@main
enum FuzzConditionalHeadersMain {
    static func main() { runFuzzer(fuzzConditionalHeaders) }
}
