import NIOHTTP1
import PkgCore
import PkgServer
import Testing

@Suite struct RequestTargetTests {
    func request(_ uri: String, host: String? = nil) -> ResourceRequest? {
        var headers = HTTPHeaders()
        if let host { headers.add(name: "Host", value: host) }
        return RequestTarget.resourceRequest(for: HTTPRequestHead(version: .http1_1, method: .GET, uri: uri, headers: headers),
                                             body: [], scheme: "app", defaultHost: nil)
    }

    @Test func originAndAbsoluteFormsNameTheirHost() throws {
        let origin = try #require(request("/app/x.js?v=1", host: "WWW.Example.com"))
        #expect(origin.host == "www.example.com" && origin.rawPath == "/app/x.js" && origin.query == "v=1")
        let absolute = try #require(request("http://www.example.com/app/"))
        #expect(absolute.url == "app://www.example.com/app/")
        #expect(request("*", host: "www.example.com") == nil)
        #expect(request("/app/") == nil, "origin form without a host")
    }

    /// Found by the request-target fuzz target (Fuzz/regressions/request-target): the
    /// absolute form was recognised by Characters, so `https:///` followed by a combining
    /// mark passed as a request with an empty host, and `HTTP://` followed by one was
    /// refused although it names a host.
    @Test func theAbsoluteFormIsRecognisedByItsBytes() throws {
        #expect(request("https:///app/") == nil)
        #expect(request("https:///\u{0317}app/") == nil)
        #expect(request("http:///\u{0301}") == nil)
        let marked = try #require(request("HTTP://\u{06D7}host/a"))
        #expect(marked.host == "\u{06D7}host" && marked.rawPath == "/a")
    }
}
