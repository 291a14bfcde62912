import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A package's SPA fallback: navigations that match no file get its document.
@Suite struct SpaFallbackTests {
    let sandbox: ResolveSandbox
    let resolver: Resolver
    static let document = Array("<!doctype html><div id=app></div>".utf8)
    static let navigation = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("shop", "1.0.0", routes: ["shop.example.com/app"], files: [
            "index.html": Self.document, "js/app.js": Array("boot()".utf8),
        ], spaFallback: "index.html")
        try sandbox.install("docs", "1.0.0", routes: ["docs.example.com"], files: ["index.html": Self.document])
        resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
    }

    func local(_ url: String, accept: String?, method: String = "GET") throws -> LocalAnswer? {
        try resolver.answerLocally(ResourceRequest(url: url, method: method, headers: accept.map { [("Accept", $0)] } ?? []))
    }

    @Test func aDeepLinkNavigationGetsTheFallbackDocument() throws {
        for path in ["/app/settings/profile", "/app/settings/", "/app/orders/42?tab=items"] {
            let answer = try #require(try local("app://shop.example.com" + path, accept: Self.navigation), "\(path)")
            #expect(answer.response.status == 200)
            #expect(answer.response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(answer.response.header("Content-Length") == String(Self.document.count))
            #expect(answer.source == .package(name: "shop", version: "1.0.0"))
            #expect(answer.file?.relativePath == "index.html", "\(path)")
            // The body streamed to the task is the fallback document itself.
            let task = RecordingTask("app://shop.example.com" + path, accept: Self.navigation)
            resolver.start(task)
            #expect(task.wait(seconds: 10))
            #expect(task.body == Self.document, "\(path)")
        }
        let head = try #require(try local("app://shop.example.com/app/settings/profile", accept: Self.navigation, method: "HEAD"))
        #expect(head.response.status == 200 && head.file == nil)
    }

    /// The fallback document is chosen by `Accept` (a navigation gets it, a fetch of the
    /// same URL does not), so a cache must key it on `Accept`; a file served as itself is not.
    @Test func theFallbackAnswerVariesByAccept() throws {
        let fallback = try #require(try local("app://shop.example.com/app/settings/profile", accept: Self.navigation))
        #expect(fallback.response.header("Vary") == "Accept")
        let revalidated = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://shop.example.com/app/settings/profile",
            headers: [("Accept", Self.navigation), ("If-None-Match", fallback.response.header("ETag") ?? "")])))
        #expect(revalidated.response.status == 304 && revalidated.response.header("Vary") == "Accept")
        #expect(try local("app://shop.example.com/app/index.html", accept: Self.navigation)?.response.header("Vary") == nil)
    }

    /// A precompressed fallback document (`pack --precompress --spa-fallback index.html`) varies
    /// by both: `Accept` chose the document, `Accept-Encoding` its coding.
    @Test func aPrecompressedFallbackVariesByAcceptAndAcceptEncoding() throws {
        let page = Array(("<!doctype html>" + String(repeating: "<p>shop</p>", count: 200)).utf8)
        try sandbox.install("pwa", "1.0.0", routes: ["pwa.example.com/app"], files: [
            "index.html": page, "index.html.br": Array(repeating: 0x1b, count: 40),
        ], spaFallback: "index.html")
        try resolver.reload()
        func answer(_ path: String, encoding: String?) throws -> LocalAnswer {
            try #require(try resolver.answerLocally(ResourceRequest(
                url: "app://pwa.example.com" + path,
                headers: [("Accept", Self.navigation)] + (encoding.map { [("Accept-Encoding", $0)] } ?? []))))
        }
        let deepLink = try answer("/app/orders/42", encoding: "gzip, deflate, br")
        #expect(deepLink.response.header("Content-Encoding") == "br")
        #expect(deepLink.response.header("Content-Length") == "40")
        #expect(deepLink.response.header("Vary") == "Accept, Accept-Encoding")
        let plain = try answer("/app/orders/42", encoding: nil)
        #expect(plain.response.header("Content-Encoding") == nil && plain.response.header("Vary") == "Accept, Accept-Encoding",
                "the identity answer varies the same way, or a cache would hand it to a br client")
        #expect(try answer("/app/index.html", encoding: "br").response.header("Vary") == "Accept-Encoding",
                "the document asked for by name was not chosen by Accept")
    }

    @Test func onlyNavigationsFallBack() throws {
        // A script, a stylesheet or a fetch of JSON that is missing is a miss (origin or 404), not the document.
        #expect(try local("app://shop.example.com/app/js/missing.js", accept: "*/*") == nil)
        #expect(try local("app://shop.example.com/app/api/orders", accept: "application/json") == nil)
        #expect(try local("app://shop.example.com/app/settings/profile", accept: nil) == nil)
        #expect(try local("app://shop.example.com/app/settings/profile", accept: Self.navigation, method: "POST") == nil)
        // Files that exist are served as themselves.
        let script = try #require(try local("app://shop.example.com/app/js/app.js", accept: Self.navigation))
        #expect(script.response.header("Content-Length") == "6")
        // A package without a fallback, and paths outside the package's route, do not fall back.
        #expect(try local("app://docs.example.com/guide/intro", accept: Self.navigation) == nil)
        #expect(try local("app://shop.example.com/elsewhere/page", accept: Self.navigation) == nil)
    }

    @Test func aFallbackThatIsNotASafeRelativePathIsRefused() throws {
        for bad in ["../etc/passwd", "/index.html", "a/../../b", ""] {
            var entry = ManifestEntry(name: "shop", version: "1.0.0", url: "shop.zip",
                                      sha256: String(repeating: "0", count: 64), size: 1)
            entry.spaFallback = bad
            #expect(throws: PkgError.self, "\(bad)") { try entry.validate(source: "m.json") }
        }
    }

    @Test func packRefusesAFallbackTheBundleLacks() throws {
        let temp = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: temp.path + "/site", withIntermediateDirectories: true)
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: temp.path + "/site/index.html"))
        let result = try PkgctlProcess.run(["pack", temp.path + "/site", "--name", "shop", "--version", "1.0.0",
                                            "--out", temp.path + "/out", "--spa-fallback", "app.html"])
        #expect(result.status == 1)
        #expect(result.stderr == "pkgctl: spaFallback 'app.html' is not a file of \(temp.path)/site\n")
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/out/manifest.json"))
        #expect(try FileSystem.contents(of: temp.path + "/out/zips").isEmpty, "no zip, no temporary file")
    }
}
