import Foundation
import PkgServer
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `PreviewServer` over real sockets, with curl and raw TCP clients.
@Suite struct PreviewServerTests {
    let temp: TemporaryDirectory
    let origin: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        try install(BundleFixtures.demoSource("1.0.0"), version: "1.0.0")
    }

    private func install(_ source: String, version: String) throws {
        try PublishingFolder(origin).pack(source: source, name: "demo", version: version, options: .init(routes: ["www.example.com/app"]))
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
    }

    /// Publishes the 1.1.0 demo sources as `version` with `routes` and installs it.
    private func publishAndUpdate(version: String, routes: [String]) throws {
        try PublishingFolder(origin).pack(source: BundleFixtures.demoSource("1.1.0"), name: "demo",
                                                       version: version, options: .init(routes: routes))
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
    }

    private func withServer(upstream: String? = nil, offline: Bool = false, redirectsRoot: Bool = true,
                            idleMilliseconds: Int64 = 60_000, _ body: (Int) throws -> Void) throws {
        let resolver = try Resolver(store: store, configuration: ResolverConfiguration(upstream: upstream))
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com", idleTimeout: .milliseconds(idleMilliseconds), offline: offline,
            redirectsRoot: redirectsRoot))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        try body(port)
    }

    private func demoFile(_ path: String, version: String = "1.0.0") throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: BundleFixtures.demoSource(version) + "/" + path))
    }

    @Test func aClientThatStopsReadingHoldsBackTheOrigin() throws {
        let site = try TemporaryDirectory(prefix: "pkgctl-site")
        let size = 64 << 20
        _ = try site.write([UInt8](repeating: 0x61, count: size), to: "large.bin")
        let nginx = try NginxOrigin(root: site.path)
        try withServer(upstream: nginx.baseURL) { port in
            let request = Array("GET /large.bin HTTP/1.1\r\nHost: www.example.com\r\n\r\n".utf8)
            // The client reads nothing for a while, then the origin dies. Had the server pulled
            // the whole answer in meanwhile, the client would still get all of it.
            let received = try HTTPExchange.rawBytes(request, port: port, timeout: 10) {
                Thread.sleep(forTimeInterval: 1.5)
                nginx.stop()
            }
            #expect(received.count > 256 * 1024, "the answer started")
            #expect(received.count < size / 2, "\(received.count) bytes arrived: the origin was not held back")
        }
    }

    @Test func aClientStillSendingAnOversizedHeaderReadsThe431AndIsNotReset() throws {
        let headers = try temp.write(Array("X-Big: ".utf8) + [UInt8](repeating: 0x61, count: 200 * 1024) + [0x0a],
                                     to: "big-header.txt")
        try withServer { port in
            // As a user tries it: curl sends a 200 KB header and reads the answer.
            for attempt in 0..<5 {
                let answer = try HTTPExchange.curl("http://127.0.0.1:\(port)/app/", ["-H", "@" + headers])
                #expect(answer.status == 431, "attempt \(attempt)")
                #expect(answer.header("Date") != nil)
            }
            // A client still sending after the answer is drained, not reset (nginx's lingering
            // close): closed at once, the socket would reset, and a reset can destroy the answer
            // before the client reads it.
            let connection = try RawConnection(port: port, timeout: 10)
            #expect(connection.send(Array("GET /app/ HTTP/1.1\r\nHost: www.example.com\r\nX-Big: ".utf8)
                                    + [UInt8](repeating: 0x61, count: 100 * 1024)))
            let head = connection.read { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 431"))
            Thread.sleep(forTimeInterval: 0.2)  // the server has closed its side by now
            #expect(connection.send([UInt8](repeating: 0x61, count: 100 * 1024) + Array("\r\n\r\n".utf8)))
            Thread.sleep(forTimeInterval: 0.2)  // time for a reset to come back
            #expect(connection.finishSending(), "the server reset a client that was still sending")
            let end = connection.readToEnd()
            #expect(!end.reset, "the server reset a client that was still sending")
        }
    }

    @Test func servesPackageFilesWithTypesValidatorsAndRanges() throws {
        try withServer { port in
            let base = "http://127.0.0.1:\(port)/app/"
            let index = try HTTPExchange.curl(base)
            #expect(index.status == 200)
            #expect(index.header("Content-Type") == "text/html; charset=utf-8")
            #expect(index.header("X-Pkg-Source") == "package")
            #expect(index.body == (try demoFile("index.html")))

            let types = ["css/style.css": "text/css; charset=utf-8", "js/app.js": "text/javascript; charset=utf-8",
                         "img/logo.png": "image/png", "img/icons/star.svg": "image/svg+xml",
                         "data/config.json": "application/json"]
            for (path, type) in types {
                let response = try HTTPExchange.curl(base + path)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("Content-Type")?.hasPrefix(type) == true, "\(path): \(response.headers)")
                #expect(response.header("Content-Length") == String(try demoFile(path).count))
            }

            let etag = try #require(index.header("ETag"))
            #expect(try HTTPExchange.curl(base + "index.html", ["-H", "If-None-Match: \(etag)"]).status == 304)

            let script = try demoFile("js/app.js")
            let first = try HTTPExchange.curl(base + "js/app.js", ["-H", "Range: bytes=0-9"])
            #expect(first.status == 206)
            #expect(first.header("Content-Range") == "bytes 0-9/\(script.count)")
            #expect(first.body == script.prefix(10))
            let suffix = try HTTPExchange.curl(base + "js/app.js", ["-H", "Range: bytes=-5"])
            #expect(suffix.body == script.suffix(5))
            let beyond = try HTTPExchange.curl(base + "js/app.js", ["-H", "Range: bytes=999999-"])
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */\(script.count)")

            let head = try HTTPExchange.curl(base + "index.html", ["-I"])
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == String(index.body.count))
            #expect(head.body.isEmpty)
        }
    }

    @Test func largeFilesStreamWholeAndInRanges() throws {
        let source = temp.path + "/big"
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.1.0"), toPath: source)
        var generator = SplitMix(seed: 9)
        let video = Data(generator.bytes(3_000_000))
        try video.write(to: URL(fileURLWithPath: source + "/media.mp4"))
        try install(source, version: "2.0.0")
        try withServer { port in
            let whole = try HTTPExchange.curl("http://127.0.0.1:\(port)/app/media.mp4")
            #expect(whole.status == 200)
            #expect(whole.body == video)
            let middle = try HTTPExchange.curl("http://127.0.0.1:\(port)/app/media.mp4", ["-H", "Range: bytes=1000000-2499999"])
            #expect(middle.status == 206)
            #expect(middle.body == video[1_000_000..<2_500_000])
        }
    }

    @Test func proxyFormRequestsResolveByTheirOwnHost() throws {
        try withServer { port in
            let response = try HTTPExchange.curl("http://www.example.com/app/css/style.css",
                                                 ["-x", "http://127.0.0.1:\(port)"])
            #expect(response.status == 200)
            #expect(response.header("X-Pkg-Source") == "package")
            #expect(response.body == (try demoFile("css/style.css")))
        }
    }

    @Test func refusesTraversalAndMalformedRequestsAndKeepsServing() throws {
        try withServer { port in
            let base = "http://127.0.0.1:\(port)"
            for path in ["/app/../../etc/passwd", "/app/%2e%2e/%2e%2e/etc/passwd", "/app/..%2f..%2fetc/passwd",
                         "/app/a%00b.html", "/app/..\\..\\etc\\passwd"] {
                let response = try HTTPExchange.curl(base + path, ["--path-as-is"])
                #expect(response.status == 400, "\(path)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains("root:"))
            }
            let garbage = try HTTPExchange.raw(Array("NOT HTTP AT ALL\r\n\r\n".utf8), port: port)
            #expect(garbage.hasPrefix("HTTP/1.1 400"))
            #expect(try HTTPExchange.curl(base + "/app/").status == 200)
        }
    }

    @Test func anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        try withServer(idleMilliseconds: 500) { port in
            let connection = try RawConnection(port: port, timeout: 10)
            let started = Date()
            #expect(connection.send(Array("GET /app/index.html HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
            let end = connection.readToEnd()
            let waited = Date().timeIntervalSince(started)
            #expect(!end.reset, "closed by the server, not timed out")
            #expect(String(decoding: end.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
            #expect(waited >= 0.4 && waited < 5, "closed after \(waited) s")
        }
    }

    @Test func anInstalledUpdateIsServedByTheNextRequest() throws {
        try withServer { port in
            let url = "http://127.0.0.1:\(port)/app/css/style.css"
            #expect(try HTTPExchange.curl(url).body == (try demoFile("css/style.css")))
            try install(BundleFixtures.demoSource("1.1.0"), version: "1.1.0")
            #expect(try HTTPExchange.curl(url).body == (try demoFile("css/style.css", version: "1.1.0")))
        }
    }

    @Test func aRouteAddedByAnUpdateIsServedByTheNextRequest() throws {
        try withServer { port in
            let proxy = ["-x", "http://127.0.0.1:\(port)"]
            try PublishingFolder(origin).pack(
                source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.1.0", options: .init(routes: ["www.example.com/app", "docs.example.com"]))
            #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
            let docs = try HTTPExchange.curl("http://docs.example.com/docs/", proxy)
            #expect(docs.status == 200)
            #expect(docs.header("X-Pkg-Source") == "package")
            #expect(docs.body == (try demoFile("docs/index.html", version: "1.1.0")))
        }
    }

    @Test func missesComeFromTheOriginAndAreWrittenThrough() throws {
        let originFiles = temp.path + "/site"
        try FileManager.default.createDirectory(atPath: originFiles + "/app", withIntermediateDirectories: true)
        let script = Data("console.log('from the origin');\n".utf8)
        try script.write(to: URL(fileURLWithPath: originFiles + "/app/extra.js"))
        let nginx = try NginxOrigin(root: originFiles)
        defer { nginx.stop() }
        try withServer(upstream: nginx.baseURL) { port in
            let url = "http://127.0.0.1:\(port)/app/extra.js"
            let first = try HTTPExchange.curl(url)
            #expect(first.status == 200)
            #expect(first.header("X-Pkg-Source") == "origin")
            #expect(first.body == script)
            // The write-through commits just after the answer ends, off the reader's path,
            // so a request right after it may still go to the origin (bounded wait).
            var second = try HTTPExchange.curl(url)
            for _ in 0..<50 where second.header("X-Pkg-Source") == "origin" && second.body == script {
                usleep(100_000)
                second = try HTTPExchange.curl(url)
            }
            #expect(second.header("X-Pkg-Source") == "overlay")
            #expect(second.body == script)
            let missing = try HTTPExchange.curl("http://127.0.0.1:\(port)/app/nope.js")
            #expect(missing.status == 404)
            #expect(missing.header("X-Pkg-Source") == "origin")
        }
    }

    @Test func theRootRedirectsToThePreviewedPackage() throws {
        try withServer(offline: true, redirectsRoot: false) { (port: Int) throws in
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/").status == 404)
        }
        try withServer(offline: true) { port in
            let root = try HTTPExchange.curl("http://127.0.0.1:\(port)/")
            #expect(root.status == 302)
            #expect(root.header("Location") == "/app/")
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/?from=qr", ["-I"]).header("Location") == "/app/?from=qr")
            let followed = try HTTPExchange.curl("http://127.0.0.1:\(port)/", ["-L"])
            #expect(followed.status == 200)
            #expect(followed.body == (try demoFile("index.html")))
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/other.js").status == 404)

            // The redirect follows updates: a moved route, then a package at the root.
            try publishAndUpdate(version: "1.1.0", routes: ["www.example.com/v2"])
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/").header("Location") == "/v2/")
            try publishAndUpdate(version: "1.2.0", routes: ["www.example.com"])
            let served = try HTTPExchange.curl("http://127.0.0.1:\(port)/")
            #expect(served.status == 200)
            #expect(served.body == (try demoFile("index.html", version: "1.1.0")))
        }
    }

    /// `GET /app` is a 301 to `/app/` (query kept), as nginx answers, and a browser that
    /// follows it gets the page where its relative URLs resolve inside the route.
    @Test func aFolderWithoutItsSlashIsRedirectedToIt() throws {
        try withServer(offline: true) { port in
            let bare = try HTTPExchange.curl("http://127.0.0.1:\(port)/app?from=qr", ["-H", "Accept: text/html"])
            #expect(bare.status == 301)
            #expect(bare.header("Location") == "/app/?from=qr")
            #expect(bare.header("Content-Length") == "0" && bare.body.isEmpty)
            // A folder without an index.html is no page: not redirected (a miss, 404 offline).
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/app/img").status == 404)
            let followed = try HTTPExchange.curl("http://127.0.0.1:\(port)/app", ["-L"])
            #expect(followed.status == 200)
            #expect(followed.body == (try demoFile("index.html")))
        }
    }

    @Test func offlineMissesAre404s() throws {
        try withServer(offline: true) { port in
            let response = try HTTPExchange.curl("http://127.0.0.1:\(port)/app/nope.js")
            #expect(response.status == 404)
            #expect(response.header("X-Pkg-Source") == "pkgctl")
        }
    }

    @Test func aStalledClientDoesNotBlockOthers() throws {
        try withServer { (port: Int) throws in
            // Connected and half a request sent before the other client starts, on this thread:
            // the stall is in place when the second request is made.
            let stalled = try RawConnection(port: port, timeout: 3)
            #expect(stalled.send(Array("GET /app/ HTTP/1.1\r\nHost: x\r\n".utf8)))
            let started = Date()
            #expect(try HTTPExchange.curl("http://127.0.0.1:\(port)/app/").status == 200)
            #expect(Date().timeIntervalSince(started) < 2)
            withExtendedLifetime(stalled) {}
        }
    }
}
