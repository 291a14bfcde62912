import Foundation
import PkgServer
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// REDbot ("lint for HTTP", from PyPI) on `pkgctl serve`'s answers: no WARN or
/// BAD note for a page, a script, a stylesheet, an image, a directory index, a
/// folder's redirect to its slash and a 404; REDbot's own conditional and ranged requests check the 304 and 206.
@Suite(.enabled(if: Redbot.isInstalled, "needs REDbot (scripts/setup --test)"))
struct RedbotTests {
    @Test func redbotFindsNothingToWarnAbout() throws {
        let temp = try TemporaryDirectory()
        let origin = temp.path + "/origin"
        let store = PackageStore(root: temp.path + "/store")
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
        let resolver = try Resolver(store: store)
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com", offline: true))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        let expected = ["app/index.html": 200, "app/js/app.js": 200, "app/css/style.css": 200,
                        "app/img/logo.png": 200, "app/": 200, "app/missing.html": 404, "app": 301]
        for (path, status) in expected {
            let report = try Redbot.notes(for: "http://127.0.0.1:\(port)/\(path)")
            #expect(report.status == status, "\(path)")
            let complaints = report.notes.filter { $0.level == "WARN" || $0.level == "BAD" }
            #expect(complaints.isEmpty, "\(path): \(complaints.map { "\($0.level) \($0.note_id): \($0.summary)" })")
            #expect(report.notes.contains { $0.note_id == "DATE_CORRECT" }, "\(path)")
            if status == 200 {
                for check in ["INM_304", "IMS_304", "RANGE_CORRECT"] {
                    #expect(report.notes.contains { $0.note_id == check && $0.level == "GOOD" }, "\(path): no \(check)")
                }
            }
        }
    }

    /// The same for a build folder served as it is (`serve --source`): a page with a declared
    /// header, a hashed (immutable) chunk, a folder's redirect, and a deep link answered with
    /// the SPA fallback (`Vary: Accept`; REDbot asks with a browser's navigation `Accept`).
    @Test func redbotFindsNothingToWarnAboutABuildFolder() throws {
        let temp = try TemporaryDirectory()
        let site = try temp.makeDirectory("site")
        // Large enough that REDbot's range request asks for part of each file.
        let filler = String(repeating: "<p>filler</p>\n", count: 100)
        try temp.write(Array("<!doctype html><meta charset=utf-8><title>app</title>\(filler)".utf8), to: "site/index.html")
        try temp.write(Array("<!doctype html><meta charset=utf-8><title>docs</title>\(filler)".utf8), to: "site/docs/index.html")
        try temp.write(Array(("console.log('chunk');\n" + String(repeating: "// filler\n", count: 200)).utf8),
                       to: "site/assets/index-BDoW_Vkf.js")
        let folder = try SourceFolder(directory: site, route: "www.example.com/app", spaFallback: "index.html",
                                      headers: [PackageHeader(files: "*.html", name: "Content-Security-Policy",
                                                              value: "default-src 'self'")])
        let resolver = try Resolver(folder: folder, cacheDirectory: temp.path("cache"))
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com", offline: true))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        let navigation = [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")]
        for (path, status) in ["app/": 200, "app/assets/index-BDoW_Vkf.js": 200, "app/docs": 301, "app/settings/profile": 200] {
            let report = try Redbot.notes(for: "http://127.0.0.1:\(port)/\(path)", headers: navigation)
            #expect(report.status == status, "\(path)")
            let complaints = report.notes.filter { $0.level == "WARN" || $0.level == "BAD" }
            #expect(complaints.isEmpty, "\(path): \(complaints.map { "\($0.level) \($0.note_id): \($0.summary)" })")
        }
        // Without the navigation's Accept the deep link is no navigation: a miss, 404 offline.
        #expect(try Redbot.notes(for: "http://127.0.0.1:\(port)/app/settings/profile").status == 404)
    }
}
