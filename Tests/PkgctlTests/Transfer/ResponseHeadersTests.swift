import Testing

@testable import PkgCore

/// Header lines as libcurl's header callback delivers them, CRLF included.
@Suite struct ResponseHeadersTests {
    private func parse(_ lines: [String]) -> ResponseHeaders {
        var head = ResponseHeaders()
        for line in lines { head.take(line + "\r\n") }
        return head
    }

    @Test func keepsOnlyTheFinalResponseOfRedirectsAndContinues() {
        let head = parse(["HTTP/1.1 100 Continue", "", "HTTP/1.1 301 Moved", "Location: /b", "",
                          "HTTP/1.1 200 OK", "ETag: \"v2\"", "Set-Cookie: a=1"])
        #expect(head.status == 200)
        #expect(!head.isComplete)
        #expect(head.fields.map(\.name) == ["ETag", "Set-Cookie"])
        #expect(head["etag"] == "\"v2\"" && head["LOCATION"] == nil)
        #expect(parse(["HTTP/1.1 100 Continue", ""]).isComplete == false)
        #expect(parse(["HTTP/2 404", ""]).isComplete)
        let withTrailers = parse(["HTTP/1.1 200 OK", "ETag: \"a\"", "", "X-Checksum: 1", ""])
        #expect(withTrailers.fields.map(\.name) == ["ETag"] && withTrailers.isComplete)
        #expect(parse(["Content-Type: text/plain", ""]).status == 0)
    }

    @Test func trimsValuesJoinsFoldedLinesAndReadsContentRange() {
        let head = parse(["HTTP/1.1 206 Partial Content", "X-Long: first", "\tsecond", "  ", "Content-Range:  bytes 100-199/500 ",
                          "Last-Modified: Mon, 23 Nov 2026 10:00:00 GMT", ""])
        #expect(head["x-long"] == "first second")
        #expect(head["Content-Range"] == "bytes 100-199/500")
        #expect(head.contentRangeStart == 100)
        #expect(head.validators.lastModified == "Mon, 23 Nov 2026 10:00:00 GMT")
        #expect(head.isComplete)
    }
}
