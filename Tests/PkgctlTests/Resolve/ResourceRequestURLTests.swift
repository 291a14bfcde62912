import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A request made from its parts gives back the URL those parts make, byte for byte,
/// whatever the parts hold (the URL is copied into one allocation, not appended piecewise).
@Suite struct ResourceRequestURLTests {
    @Test func aRequestMadeFromPartsGivesBackItsURL() throws {
        let cases: [(host: String, target: String, url: String)] = [
            ("www.example.com", "/app/index.html", "app://www.example.com/app/index.html"),
            ("localhost:8080", "/a/b.js?v=1&x=%C3%A9", "app://localhost:8080/a/b.js?v=1&x=%C3%A9"),
            ("h", "/", "app://h/"),
            ("www.example.com", "/" + String(repeating: "long-segment/", count: 40) + "é.png",
             "app://www.example.com/" + String(repeating: "long-segment/", count: 40) + "é.png"),
        ]
        for item in cases {
            let request = try #require(ResourceRequest(scheme: "app", host: item.host, target: item.target))
            #expect(request.url == item.url)
            #expect(request.url.utf8.count == item.url.utf8.count)
        }
    }

    @Test func concatenatingCopiesEveryPartInOrder() {
        let text = "prefix/éü/suffix"
        let middle = text.dropFirst(7).prefix(2)  // a slice that starts and ends inside the string
        #expect(String(concatenating: "a", "", middle, "/z") == "aéü/z")
        #expect(String(concatenating: Substring(String(repeating: "x", count: 1000)), "y").utf8.count == 1001)
    }
}
