import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite(.serialized) struct UpstreamTests {
    let sandbox: ResolveSandbox
    let originRoot: TemporaryDirectory
    let origin: ResolverOrigin
    let resolver: Resolver
    static let big: [UInt8] = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: ["index.html": Array("local".utf8)])
        originRoot = try TemporaryDirectory(prefix: "pkgctl-origin")
        for name in ["app/remote.js", "app/remote.css", "app/page.html", "app/pic.png", "lib.js"] {
            _ = try originRoot.write(Array("origin \(name)\n".utf8), to: name)
        }
        _ = try originRoot.write(Self.big, to: "big.js")
        _ = try originRoot.write(Self.big, to: "big.png")
        origin = try ResolverOrigin(root: originRoot.path)
        resolver = try Resolver(store: sandbox.store,
                                configuration: ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile))
    }

    func run(_ url: String, accept: String? = nil, headers: [(name: String, value: String)] = [],
             method: String = "GET", body: [UInt8] = []) -> RecordingTask {
        let task = RecordingTask(url, accept: accept, headers: headers, method: method, body: body)
        resolver.start(task)
        #expect(task.wait(seconds: 20))
        #expect(task.isWellOrdered)
        return task
    }

    func idle() -> Bool { eventually(seconds: 10) { resolver.upstreamTransfersInFlight == 0 } }

    @Test func fallsBackOverHTTPSAndWritesThrough() throws {
        let first = run("app://www.example.com/app/remote.js")
        #expect(first.response?.status == 200)
        #expect(first.text == "origin app/remote.js\n")
        #expect(idle())
        let cached = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/remote.js"
        #expect(FileManager.default.contents(atPath: cached) == Data("origin app/remote.js\n".utf8))
        let second = run("app://www.example.com/app/remote.js")
        #expect(second.text == "origin app/remote.js\n")
        #expect(second.response?.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(origin.requests(to: "/app/remote.js") == 1)
        #expect(try resolver.plan(for: ResourceRequest(url: "app://www.example.com/app/remote.js")).fromOverlay)
        // Unrouted host: cache/HOST/PATH.
        _ = run("app://cdn.example.org/lib.js")
        #expect(idle())
        #expect(FileManager.default.fileExists(atPath: sandbox.store.layout.overlay + "/cdn.example.org/lib.js"))
    }

    @Test func aMissRememberedAsAbsentYieldsToAnEntryWrittenLater() throws {
        // Written through by this resolver: seen at once (the absence is forgotten when it is published).
        #expect(try !resolver.plan(for: ResourceRequest(url: "app://www.example.com/app/remote.js")).fromOverlay)
        _ = run("app://www.example.com/app/remote.js")
        #expect(idle())
        #expect(try resolver.plan(for: ResourceRequest(url: "app://www.example.com/app/remote.js")).fromOverlay)
        // Written by another process: seen once the absence has expired.
        let url = "app://www.example.com/app/elsewhere.js"
        #expect(try !resolver.plan(for: ResourceRequest(url: url)).fromOverlay)
        let directory = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: directory + "/elsewhere.js", contents: Data("x".utf8)))
        #expect(eventually(seconds: 5) { (try? resolver.plan(for: ResourceRequest(url: url)).fromOverlay) == true })
    }

    @Test func answersToCredentialedRequestsAreNotWrittenThrough() throws {
        for _ in 0..<2 {
            let task = run("app://www.example.com/app/remote.css", headers: [("Authorization", "Bearer secret")])
            #expect(task.response?.status == 200)
        }
        #expect(idle())
        #expect(eventually { origin.requests(to: "/app/remote.css") == 2 })
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/remote.css"))
    }

    @Test func headRequestsToTheOriginFinish() throws {
        let task = run("app://www.example.com/app/remote.js", method: "HEAD")
        #expect(task.response?.status == 200)
        #expect(task.response?.header("Content-Length") == "21")
        #expect(task.response?.header("Connection") == nil)  // nginx sends keep-alive: hop-by-hop, dropped
        #expect(task.events.last == .finish)
    }

    @Test func overlayTempFilesOfDeadProcessesAreRemoved() throws {
        let temporaries = sandbox.store.layout.overlay + "/.tmp"
        let abandoned = temporaries + "/w-999999999-1", live = temporaries + "/w-\(getpid())-999"
        for path in [abandoned, live] { #expect(FileManager.default.createFile(atPath: path, contents: Data("partial".utf8))) }
        _ = try Resolver(store: sandbox.store)
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: live), "a running process's temp file stays")
        try FileManager.default.removeItem(atPath: live)
    }

    /// After `shutdown` a miss fails with its one terminal call, well before any transfer
    /// timeout, and nothing reaches the origin; files of the package still answer.
    @Test func missesAfterShutdownFailAtOnce() throws {
        resolver.shutdown()
        let task = RecordingTask("app://www.example.com/app/remote.js")
        let started = ContinuousClock.now
        resolver.start(task)
        #expect(task.wait(seconds: 2))
        #expect(ContinuousClock.now - started < .seconds(1), "failed at once, not after a timeout")
        #expect(task.events.count == 1)
        guard case .fail = task.events.first else {
            Issue.record("a miss after shutdown must fail, got \(task.events)")
            return
        }
        #expect(resolver.upstreamTransfersInFlight == 0)
        #expect(origin.requests(to: "/app/remote.js") == 0, "\(origin.accessLog())")
        #expect(run("app://www.example.com/app/index.html").text == "local")
    }

    @Test func imagesAndOtherAreNotWrittenThrough() throws {
        _ = run("app://www.example.com/app/pic.png", accept: chromiumImageAccept)
        _ = run("app://www.example.com/echo-cookie", accept: "*/*")
        #expect(idle())
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/pic.png"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.layout.overlay + "/www.example.com/echo-cookie"))
        _ = run("app://www.example.com/app/pic.png", accept: chromiumImageAccept)
        #expect(eventually { origin.requests(to: "/app/pic.png") == 2 })
    }

    @Test(arguments: ["/set-cookie/app/remote.css", "/no-store/app/remote.css", "/private/app/remote.css",
                      "/always-500/app/remote.css"])
    func uncacheableAnswersAreNotCached(_ path: String) throws {
        let first = run("app://cdn.example.org" + path)
        #expect(first.response != nil)
        if path.hasPrefix("/set-cookie") { #expect(first.response?.headers("Set-Cookie") == ["session=1"]) }
        #expect(idle())
        #expect(!FileManager.default.fileExists(atPath: sandbox.store.layout.overlay + "/cdn.example.org" + path))
        _ = run("app://cdn.example.org" + path)
        #expect(eventually { origin.requests(to: path) == 2 })
    }

    @Test func overlayEntryGoesStaleWithNewVersion() throws {
        _ = run("app://www.example.com/app/page.html", accept: chromiumDocumentAccept)
        #expect(idle())
        #expect(try resolver.plan(for: ResourceRequest(url: "app://www.example.com/app/page.html")).fromOverlay)
        try sandbox.install("app", "1.1.0", routes: ["www.example.com/app"], files: ["index.html": Array("v2".utf8)])
        let plan = try resolver.plan(for: ResourceRequest(url: "app://www.example.com/app/page.html",
                                                          headers: [("Accept", chromiumDocumentAccept)]))
        #expect(!plan.fromOverlay)
        #expect(plan.version == "1.1.0")
        _ = run("app://www.example.com/app/page.html", accept: chromiumDocumentAccept)
        #expect(eventually { origin.requests(to: "/app/page.html") == 2 })
    }

    @Test func concurrentMissesShareOneFetch() throws {
        let tasks = (0..<20).map { _ in RecordingTask("app://cdn.example.org/slow/big.js") }
        for task in tasks { resolver.start(task) }
        for task in tasks {
            #expect(task.wait(seconds: 20))
            #expect(task.isWellOrdered)
            #expect(task.body == Self.big)
        }
        #expect(origin.requests(to: "/slow/big.js") == 1)
    }

    @Test func postPassesThroughWithBodyAndHeaders() throws {
        let body = Array("name=value&x=1".utf8)
        let post = run("app://www.example.com/echo-post", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                       method: "POST", body: body)
        #expect(post.response?.status == 200)
        #expect(post.text == "posted\n")
        #expect(eventually { origin.accessLog().contains { $0.hasPrefix("POST /echo-post 200") && $0.contains("name=value&x=1") } })
        let echo = run("app://www.example.com/echo-cookie", headers: [("Cookie", "a=b"), ("User-Agent", "pkgctl-test")])
        #expect(echo.text == "cookie=a=b ua=pkgctl-test\n")
        #expect(idle())
    }

    /// An image is not written through, so the stopped task is the fetch's only reader.
    /// (A script's fetch goes on after its task stops, to finish the write-through.)
    @Test func stoppingTheOnlyTaskCancelsTheFetch() throws {
        let task = RecordingTask("app://cdn.example.org/slow/big.png", accept: "image/*")
        resolver.start(task)
        #expect(eventually(seconds: 5) { !task.events.isEmpty })
        resolver.stop(task)
        task.markStopped()
        #expect(idle())
        // The origin saw the transfer end early: its log line (written when the
        // connection closed) counts fewer body bytes than the file has. At 64 KB/s
        // the whole 300 KB would take about 5 s.
        #expect(eventually(seconds: 10) { !origin.bodyBytesSent(to: "/slow/big.png").isEmpty })
        let sent = try #require(origin.bodyBytesSent(to: "/slow/big.png").first)
        #expect(sent < Self.big.count / 2, "the origin sent \(sent) of \(Self.big.count) bytes")
        usleep(100_000)
        #expect(task.deliveredAfterStop == 0)
        #expect(task.isOrderedPrefix)
    }

    /// A ranged miss (a media element's read, `Range: bytes=N-M`) goes to the origin with its
    /// `Range`, is answered with the origin's 206 and `Content-Range`, and is never written
    /// through, even for a class that is (a script): a part is never stored as the whole file.
    /// The same file without `Range` is then a 200, written through whole.
    @Test func aRangedMissIsForwardedAnsweredPartlyAndNeverWrittenThrough() throws {
        _ = try originRoot.write(Self.big, to: "app/clip.js")
        let part = run("app://www.example.com/app/clip.js", headers: [("Range", "bytes=1000-1999")])
        #expect(part.response?.status == 206)
        #expect(part.response?.header("Content-Range") == "bytes 1000-1999/\(Self.big.count)")
        #expect(part.body == Array(Self.big[1000..<2000]))
        #expect(idle())
        let cached = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/clip.js"
        #expect(!FileManager.default.fileExists(atPath: cached))
        #expect(origin.bodyBytesSent(to: "/app/clip.js") == [1000])

        let whole = run("app://www.example.com/app/clip.js")
        #expect(whole.response?.status == 200 && whole.body == Self.big)
        #expect(idle())
        #expect(FileManager.default.contents(atPath: cached) == Data(Self.big))
    }

    @Test func unreachableOriginFails() throws {
        let closed = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        let task = RecordingTask("app://www.example.com/app/missing.js")
        closed.start(task)
        #expect(task.wait(seconds: 15))
        #expect(task.events == [.fail("transferFailed")])
    }
}
