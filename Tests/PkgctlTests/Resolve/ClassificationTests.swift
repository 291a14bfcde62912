import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite struct ClassificationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let browser: String
        let accept: String?
        let path: String
        let expected: ResourceClass
        var testDescription: String { "\(browser) \(path) → \(expected)" }
    }

    static let cases: [Case] = [
        // Chromium 156 (seen on this machine)
        Case(browser: "Chromium document", accept: chromiumDocumentAccept, path: "/app/", expected: .html),
        Case(browser: "Chromium document .png-looking", accept: chromiumDocumentAccept, path: "/app/logo.png", expected: .html),
        Case(browser: "Chromium image", accept: chromiumImageAccept, path: "/app/img/logo", expected: .image),
        Case(browser: "Chromium image .png", accept: chromiumImageAccept, path: "/app/img/logo.png", expected: .image),
        Case(browser: "Chromium style", accept: "text/css,*/*;q=0.1", path: "/app/css/style.css", expected: .style),
        Case(browser: "Chromium style, no extension", accept: "text/css,*/*;q=0.1", path: "/app/theme", expected: .style),
        Case(browser: "Chromium script", accept: "*/*", path: "/app/js/app.js", expected: .script),
        Case(browser: "Chromium module", accept: "*/*", path: "/app/js/main.mjs", expected: .script),
        Case(browser: "Chromium font", accept: "*/*", path: "/app/fonts/a.woff2", expected: .other),
        Case(browser: "Chromium fetch", accept: "*/*", path: "/api/items", expected: .other),
        Case(browser: "Chromium XHR json", accept: "application/json, text/plain, */*", path: "/api/items", expected: .other),
        Case(browser: "Chromium video", accept: "*/*", path: "/media/clip.mp4", expected: .other),
        // Firefox
        Case(browser: "Firefox document", accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
             path: "/app/index.html", expected: .html),
        Case(browser: "Firefox image", accept: "image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
             path: "/app/a.webp", expected: .image),
        Case(browser: "Firefox style", accept: "text/css,*/*;q=0.1", path: "/app/a.css", expected: .style),
        Case(browser: "Firefox script", accept: "*/*", path: "/app/a.js", expected: .script),
        Case(browser: "Firefox font", accept: "application/font-woff2;q=1.0,application/font-woff;q=0.9,*/*;q=0.8",
             path: "/f.woff2", expected: .other),
        Case(browser: "Firefox video", accept: "video/webm,video/ogg,video/*;q=0.9,application/ogg;q=0.7,audio/*;q=0.6,*/*;q=0.5",
             path: "/v.webm", expected: .other),
        // Safari
        Case(browser: "Safari document", accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
             path: "/app", expected: .html),
        Case(browser: "Safari image",
             accept: "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
             path: "/app/a.jpg", expected: .image),
        Case(browser: "Safari style", accept: "text/css,*/*;q=0.1", path: "/app/a.css", expected: .style),
        Case(browser: "Safari script", accept: "*/*", path: "/app/a.js", expected: .script),
        // No Accept at all
        Case(browser: "none, image extension", accept: nil, path: "/a/b.SVG", expected: .image),
        Case(browser: "none, js", accept: nil, path: "/a/b.js", expected: .script),
        Case(browser: "none, json", accept: nil, path: "/a/b.json", expected: .other),
    ]

    @Test(arguments: cases)
    func classifies(_ item: Case) {
        #expect(ResourceClass.classify(accept: item.accept, path: item.path) == item.expected)
    }

    @Test func mediaTypes() {
        #expect(MediaType.forPath("/a/index.html") == "text/html; charset=utf-8")
        #expect(MediaType.forPath("/a/main.mjs") == "text/javascript; charset=utf-8")
        #expect(MediaType.forPath("/a/app.js") == "text/javascript; charset=utf-8")
        #expect(MediaType.forPath("/a/s.css") == "text/css; charset=utf-8")
        #expect(MediaType.forPath("/a/m.wasm") == "application/wasm")
        #expect(MediaType.forPath("/a/i.svg") == "image/svg+xml; charset=utf-8")
        #expect(MediaType.forPath("/a/i.webp") == "image/webp")
        #expect(MediaType.forPath("/a/i.avif") == "image/avif")
        #expect(MediaType.forPath("/a/f.woff2") == "font/woff2")
        #expect(MediaType.forPath("/a/d.json") == "application/json; charset=utf-8")
        #expect(MediaType.forPath("/a/app.js.map") == "application/json; charset=utf-8")
        #expect(MediaType.forPath("/a/site.webmanifest") == "application/manifest+json; charset=utf-8")
        #expect(MediaType.forPath("/a/README.TXT") == "text/plain; charset=utf-8")
        #expect(MediaType.forPath("/a/blob") == "application/octet-stream")
        #expect(MediaType.forPath("/a/page", fallback: .html) == "text/html; charset=utf-8")
    }

    @Test func parsesURLs() {
        let request = ResourceRequest(url: "APP://WWW.Example.com:8080/app/a%20b.html?id=1&x=2#frag")
        #expect(request.scheme == "APP")
        #expect(request.host == "www.example.com:8080")
        #expect(request.rawPath == "/app/a%20b.html")
        #expect(request.query == "id=1&x=2")
        let bare = ResourceRequest(url: "app://host")
        #expect(bare.rawPath == "/")
        #expect(bare.query == "")
    }
}
