import Testing

@testable import PkgCore
@testable import PkgPublishing

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
                          "Last-Modified: Mon, 23 Nov 2026 10:00:00 GMT", "Date: Mon, 23 Nov 2026 10:00:01 GMT", ""])
        #expect(head["x-long"] == "first second")
        #expect(head["Content-Range"] == "bytes 100-199/500")
        #expect(head.contentRangeStart == 100)
        #expect(head.validators.lastModified == "Mon, 23 Nov 2026 10:00:00 GMT")
        #expect(head.isComplete)
    }

    /// RFC 9110 §8.8.2.2: a Last-Modified less than a second before Date is weak, and an
    /// mtime-based ETag beside it may name two contents; neither is kept.
    @Test func validatorsWithinASecondOfDateOrWithoutADateAreNotKept() {
        func validators(_ lines: [String]) -> HTTPValidators {
            parse(["HTTP/1.1 200 OK", "ETag: \"5f3a-352\""] + lines + [""]).validators
        }
        let modified = "Last-Modified: Mon, 23 Nov 2026 10:00:00 GMT"
        #expect(validators([modified, "Date: Mon, 23 Nov 2026 10:00:01 GMT"])
                == HTTPValidators(etag: "\"5f3a-352\"", lastModified: "Mon, 23 Nov 2026 10:00:00 GMT"))
        #expect(validators([modified, "Date: Mon, 23 Nov 2026 10:00:00 GMT"]).isEmpty, "the same second")
        #expect(validators([modified, "Date: Mon, 23 Nov 2026 09:59:00 GMT"]).isEmpty, "modified in the future")
        #expect(validators([modified]).isEmpty, "no Date to judge by")
        #expect(validators(["Last-Modified: yesterday", "Date: Mon, 23 Nov 2026 10:00:01 GMT"]).isEmpty)
        #expect(validators(["Date: Mon, 23 Nov 2026 10:00:01 GMT"]) == HTTPValidators(etag: "\"5f3a-352\""),
                "an ETag alone (a content hash, say) is kept")
    }
}
