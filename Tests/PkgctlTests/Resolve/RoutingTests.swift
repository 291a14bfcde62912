import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite struct RoutingTests {
    let sandbox: ResolveSandbox
    let resolver: Resolver

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("site", "1.0.0", routes: ["www.example.com"], files: [
            "index.html": Array("site root".utf8), "apple/index.html": Array("apple".utf8),
        ])
        try sandbox.install("app", "2.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("app index".utf8), "js/app.js": Array("js".utf8),
            "docs/index.html": Array("docs".utf8), "a b.txt": Array("space".utf8),
            "100%.txt": Array("percent".utf8),
        ])
        try sandbox.install("deep", "3.0.0", routes: ["www.example.com/app/deep/"], files: [
            "x.css": Array("deep css".utf8),
        ])
        resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
    }

    func plan(_ url: String, accept: String? = nil) throws -> ResolutionPlan {
        try resolver.plan(for: ResourceRequest(url: url, headers: accept.map { [("Accept", $0)] } ?? []))
    }

    @Test func longestPrefixWins() throws {
        #expect(try plan("app://www.example.com/app/deep/x.css").package == "deep")
        #expect(try plan("app://www.example.com/app/js/app.js").package == "app")
        #expect(try plan("app://www.example.com/other").package == "site")
    }

    @Test func prefixMatchesWholeSegments() throws {
        let apple = try plan("app://www.example.com/apple/")
        #expect(apple.package == "site")
        #expect(apple.localFile?.hasSuffix("site/1.0.0/apple/index.html") == true)
        #expect(try plan("app://www.example.com/app").package == "app")
        #expect(try plan("app://www.example.com/appendix.js").package == "site")
    }

    @Test func aFolderWithItsSlashGetsItsIndexHTML() throws {
        #expect(try plan("app://www.example.com/app/", accept: chromiumDocumentAccept).localFile?.hasSuffix("app/2.0.0/index.html") == true)
        #expect(try plan("app://www.example.com/app/docs/").localFile?.hasSuffix("app/2.0.0/docs/index.html") == true)
        #expect(try plan("app://www.example.com/").localFile?.hasSuffix("site/1.0.0/index.html") == true)
    }

    /// As nginx does: a folder named without its slash is a 301 to it (query kept), since
    /// served in place the page's relative URLs would resolve one folder up; the custom-scheme
    /// task gets the same answer.
    @Test func aFolderWithoutItsSlashIsRedirectedToIt() throws {
        for (url, location) in [("app://www.example.com/app", "/app/"), ("app://www.example.com/app?x=1&y=2", "/app/?x=1&y=2"),
                                ("app://www.example.com/app/docs", "/app/docs/"), ("app://www.example.com/apple", "/apple/"),
                                ("app://www.example.com/app/a%20b", nil)] {
            let answer = try resolver.answerLocally(ResourceRequest(url: url, headers: [("Accept", chromiumDocumentAccept)]))
            if let location {
                #expect(answer?.response.status == 301, "\(url)")
                #expect(answer?.response.header("Location") == location, "\(url)")
                #expect(answer?.response.header("Content-Length") == "0" && answer?.file == nil, "\(url)")
            } else {
                #expect(answer == nil || answer?.response.status != 301, "\(url): not a folder")
            }
        }
        let task = RecordingTask("app://www.example.com/app/docs?tab=1", accept: chromiumDocumentAccept)
        resolver.start(task)
        #expect(task.wait(seconds: 10))
        #expect(task.events == [.response(301), .finish])
        #expect(task.response?.header("Location") == "/app/docs/?tab=1")
        // Never to another host: `//apple` (a root route's folder) goes to `/apple/`, not `//apple/`.
        let doubled = try resolver.answerLocally(ResourceRequest(url: "app://www.example.com//apple"))
        #expect(doubled?.response.header("Location") == "/apple/", "\(doubled?.response.headers ?? [])")
        // A file is never redirected.
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/js/app.js"))?.response.status == 200)
    }

    @Test func percentDecodingOnce() throws {
        #expect(try plan("app://www.example.com/app/a%20b.txt").localFile?.hasSuffix("/a b.txt") == true)
        #expect(try plan("app://www.example.com/app/100%25.txt").localFile?.hasSuffix("/100%.txt") == true)
        // %2525 decodes once to "%25", which is not the file "100%.txt".
        #expect(try plan("app://www.example.com/app/100%2525.txt").localFile == nil)
    }

    @Test(arguments: [
        "/app/../site/index.html", "/app/%2e%2e/x", "/app/%2E%2E/x", "/app/.%2e/x", "/app/..", "/app/./index.html",
        "/app/js%2fapp.js", "/app/js%2Fapp.js", "/app/..%2findex.html", "/app/a%00b", "/app/a\\b", "/app/a%5cb",
        "/app/%c0%ae%c0%ae/x", "/app/%zz", "/app/%2",
    ])
    func refusesTraversal(_ path: String) {
        #expect(throws: PkgError.self) { try plan("app://www.example.com" + path) }
        let task = RecordingTask("app://www.example.com" + path)
        resolver.start(task)
        #expect(task.wait(seconds: 5))
        #expect(task.events == [.fail("invalidArgument")])
    }

    @Test func aQueryWithAControlByteIsRefusedBeforeItReachesTheOrigin() throws {
        for url in ["app://cdn.example.org/lib.js?v=1\u{0}evil", "app://www.example.com/app/missing.js?a\r\nb"] {
            #expect(throws: PkgError.self) { try plan(url) }
            let task = RecordingTask(url)
            resolver.start(task)
            #expect(task.wait(seconds: 5))
            #expect(task.events == [.fail("invalidArgument")])
        }
        #expect(try plan("app://cdn.example.org/lib.js?v=1&q=%00").upstreamURL == "https://127.0.0.1:9/lib.js?v=1&q=%00")
    }

    @Test func aHostsPortIsTheDigitsAfterItsLastColon() throws {
        #expect(try plan("app://www.example.com:8443/app/js/app.js").package == "app")
        #expect(try plan("app://www.example.com:/app/js/app.js").package == "app")
        #expect(try plan("app://www.example.com:junk/app/js/app.js").package == nil)
        #expect(try plan("app://www.example.com:80a/app/js/app.js").package == nil)
    }

    @Test func entryPathIsTheFirstRouteOfAHostWithoutARoot() throws {
        #expect(resolver.entryPath(forHost: "www.example.com") == nil)  // "site" serves the root
        let other = try ResolveSandbox()
        try other.install("b-docs", "1.0.0", routes: ["shop.example.com/docs"], files: ["index.html": [1]])
        try other.install("a-shop", "1.0.0", routes: ["shop.example.com/app//", "blog.example.com/my blog"],
                          files: ["index.html": [1]])
        try other.install("c-root", "1.0.0", routes: ["root.example.com//"], files: ["index.html": [1]])
        let resolver = try Resolver(store: other.store)
        #expect(resolver.entryPath(forHost: "shop.example.com") == "/app/")   // package-name order, slashes trimmed
        #expect(resolver.entryPath(forHost: "SHOP.example.com:8080") == "/app/")
        #expect(resolver.entryPath(forHost: "blog.example.com") == "/my%20blog/")
        #expect(resolver.entryPath(forHost: "root.example.com") == nil)       // "//" is the root
        #expect(resolver.entryPath(forHost: "unknown.example.com") == nil)
    }

    @Test func symlinkCannotEscape() throws {
        let version = sandbox.root + "/packages/app/2.0.0"
        try "secret".write(toFile: sandbox.root + "/secret.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: version + "/link.txt", withDestinationPath: sandbox.root + "/secret.txt")
        try FileManager.default.createSymbolicLink(atPath: version + "/up", withDestinationPath: "..")
        #expect(try plan("app://www.example.com/app/link.txt").localFile == nil)
        #expect(try plan("app://www.example.com/app/up/2.0.0/index.html").localFile == nil)
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/link.txt")) == nil)
    }

    @Test func unroutedHostGoesUpstream() throws {
        let result = try plan("app://cdn.example.org/lib.js?v=1")
        #expect(result.package == nil)
        #expect(result.upstreamURL == "https://127.0.0.1:9/lib.js?v=1")
        #expect(result.overlayPath == nil) // a query string is never written through
        let html = try plan("app://cdn.example.org/page", accept: chromiumDocumentAccept)
        #expect(html.overlayPath == sandbox.store.layout.overlay + "/cdn.example.org/page")
    }

    @Test func defaultUpstreamIsHTTPSOfSameHost() throws {
        let plain = try Resolver(store: sandbox.store)
        let result = try plain.plan(for: ResourceRequest(url: "app://www.example.com/app/missing.js?x=1"))
        #expect(result.upstreamURL == "https://www.example.com/app/missing.js?x=1")
        #expect(result.resourceClass == .script)
        #expect(result.overlayPath == nil)
        let css = try plain.plan(for: ResourceRequest(url: "app://www.example.com/app/missing.css"))
        #expect(css.overlayPath == sandbox.store.layout.overlay + "/app@2.0.0/www.example.com/app/missing.css")
        #expect(css.coalesced)
        let post = try plain.plan(for: ResourceRequest(url: "app://www.example.com/app/index.html", method: "POST"))
        #expect(post.upstreamURL == "https://www.example.com/app/index.html")
        #expect(post.overlayPath == nil && !post.coalesced)
    }

    @Test func followsCurrentWhenItChanges() throws {
        #expect(try plan("app://www.example.com/app/js/app.js").version == "2.0.0")
        try sandbox.install("app", "2.1.0", routes: ["www.example.com/app"], files: ["js/app.js": Array("new".utf8)])
        let after = try plan("app://www.example.com/app/js/app.js")
        #expect(after.version == "2.1.0")
        #expect(after.localFile?.hasSuffix("app/2.1.0/js/app.js") == true)
    }

    @Test func anUnreadableStoreKeepsThePreviousRoutesAndRetriesOnceASecond() throws {
        #expect(try plan("app://www.example.com/app/js/app.js").version == "2.0.0")
        // A new version becomes current, but another package's record cannot be read:
        // the store cannot be loaded until that is repaired.
        try sandbox.install("app", "2.1.0", routes: ["www.example.com/app"], files: ["js/app.js": Array("new".utf8)])
        let record = sandbox.root + "/state/packages/site/1.0.0.json"
        let good = try Data(contentsOf: URL(fileURLWithPath: record))
        try Data("{".utf8).write(to: URL(fileURLWithPath: record))

        let firstFailure = ContinuousClock.now
        for _ in 0..<50 { #expect(try plan("app://www.example.com/app/js/app.js").version == "2.0.0") }
        #expect(resolver.routeReloadFailureCount.load(ordering: .relaxed) == 1,
                "one failed reload, logged and counted; not one per request")
        // Still broken, requests keep coming: the next attempt is a second later, not sooner.
        #expect(eventually(seconds: 5) {
            _ = try? plan("app://www.example.com/app/js/app.js")
            return resolver.routeReloadFailureCount.load(ordering: .relaxed) == 2
        })
        #expect(ContinuousClock.now - firstFailure >= .milliseconds(950))

        try good.write(to: URL(fileURLWithPath: record))
        #expect(eventually(seconds: 3) { (try? plan("app://www.example.com/app/js/app.js").version) == "2.1.0" })
        #expect(resolver.routeReloadFailureCount.load(ordering: .relaxed) <= 3)
    }

    @Test func noticesNewPackages() throws {
        let quick = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(packageRescanMilliseconds: 0))
        #expect(try quick.plan(for: ResourceRequest(url: "app://new.example.com/x.js")).package == nil)
        try sandbox.install("fresh", "1.0.0", routes: ["new.example.com"], files: ["x.js": Array("x".utf8)])
        #expect(eventually(seconds: 3) {
            (try? quick.plan(for: ResourceRequest(url: "app://new.example.com/x.js")).package) == "fresh"
        })
    }
}
