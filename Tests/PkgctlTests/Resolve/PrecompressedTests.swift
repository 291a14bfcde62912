import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Precompressed files: `pack --precompress` writes `X.br` / `X.gz` beside text
/// files, and the resolver answers with one when `Accept-Encoding` allows.
@Suite struct PrecompressedTests {
    static let script = Array(String(repeating: "console.log('offline packages are fast');\n", count: 60).utf8)
    static let page = Array(("<!doctype html><title>t</title>" + String(repeating: "<p>hello precompressed world</p>", count: 40)).utf8)

    @Test(arguments: [
        ("gzip, deflate, br", ContentCoding.brotli), ("gzip", .gzip), ("br;q=0.5, gzip", .gzip),
        ("br;q=0, gzip;q=0", nil), ("*", .brotli), ("*;q=0.1, gzip;q=0.5", .gzip), ("identity", nil),
        ("GZIP", .gzip), ("x-gzip", .gzip), ("br;q=0, *", .gzip), ("", nil), ("deflate", nil),
        ("br;q=-1, gzip;q=0.5", .gzip), ("br ; q=0.001 , gzip;q=0.0009", .brotli), ("br;q=junk", .brotli),
    ] as [(String, ContentCoding?)])
    func acceptEncodingPicksTheBestCodingItAllows(header: String, expected: ContentCoding?) {
        #expect(ContentCoding.preferred(for: header, among: [.brotli, .gzip]) == expected)
    }

    @Test func onlyAvailableCodingsAreChosen() {
        #expect(ContentCoding.preferred(for: "br, gzip", among: [.gzip]) == .gzip)
        #expect(ContentCoding.preferred(for: "br", among: [.gzip]) == nil)
        #expect(ContentCoding.preferred(for: nil, among: [.gzip, .brotli]) == nil)
    }

    @Test func packPrecompressWritesReproducibleSiblingsThatDecodeToTheOriginal() throws {
        let temp = try TemporaryDirectory()
        let source = temp.path + "/site"
        try write([
            "index.html": Self.page, "js/app.js": Self.script, "js/tiny.js": Array("x()".utf8),
            "img/logo.png": Self.script,  // not a text type, whatever its bytes
            "css/site.css": Array(String(repeating: "body{margin:0}\n", count: 80).utf8),
            "css/site.css.gz": Array("the site's own gzip".utf8),
        ], under: source)
        let first = try PublishingFolder(temp.path + "/one").pack(
            source: source, name: "site", version: "1.0.0", options: .init(precompress: true))
        let second = try PublishingFolder(temp.path + "/two").pack(
            source: source, name: "site", version: "1.0.0", options: .init(precompress: true))
        #expect(first.sha256 == second.sha256, "packing twice gave different zips")

        let zip = temp.path + "/one/" + first.url
        let names = try runCommand("/usr/bin/unzip", ["-Z1", zip]).split(separator: "\n").map(String.init).sorted()
        #expect(names == ["css/site.css", "css/site.css.br", "css/site.css.gz", "img/logo.png", "index.html",
                          "index.html.br", "index.html.gz", "js/app.js", "js/app.js.br", "js/app.js.gz", "js/tiny.js"])
        #expect(try unzipped(zip, "css/site.css.gz") == "the site's own gzip", "a sibling the site made was replaced")
        for (name, original) in [("index.html", Self.page), ("js/app.js", Self.script)] {
            for (suffix, tool) in [(".gz", "/usr/bin/gzip"), (".br", "/usr/bin/brotli")] {
                let encoded = temp.path + "/encoded" + suffix
                _ = try runCommand("/usr/bin/unzip", ["-o", "-j", "-q", zip, name + suffix, "-d", temp.path + "/x"])
                try FileManager.default.moveItem(atPath: temp.path + "/x/" + (name + suffix).split(separator: "/").last!,
                                                 toPath: encoded)
                #expect(try runCommand(tool, ["-dc", encoded]) == String(decoding: original, as: UTF8.self), "\(name)\(suffix)")
                try FileManager.default.removeItem(atPath: encoded)
            }
        }
        // Already-compressed entries are stored, not deflated a second time.
        let listing = try runCommand("/usr/bin/unzip", ["-v", zip])
        #expect(listing.split(separator: "\n").filter { $0.hasSuffix(".br") || $0.hasSuffix(".gz") }
            .allSatisfy { $0.contains("Stored") }, "\(listing)")
    }

    @Test func theResolverAnswersWithTheEncodedSiblingClientsAccept() throws {
        let sandbox = try ResolveSandbox()
        let gzip = try Precompressor.encode(Self.script, as: .gzip, path: "app.js")
        let brotli = try Precompressor.encode(Self.script, as: .brotli, path: "app.js")
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
            "js/app.js": Self.script, "js/app.js.gz": gzip, "js/app.js.br": brotli, "js/plain.js": Self.script,
            "js/app.3f2a9c1b.js": Self.script, "js/app.3f2a9c1b.js.gz": gzip,
            "sitemap.xml": Array("<urlset/>".utf8), "sitemap.xml.gz": gzip,  // the site's own, larger
        ])
        let resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        func answer(_ path: String, _ headers: [(name: String, value: String)]) throws -> LocalAnswer {
            try #require(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/" + path, headers: headers)))
        }

        let identity = try answer("js/app.js", [])
        let gzipped = try answer("js/app.js", [("Accept-Encoding", "gzip")])
        let brotlied = try answer("js/app.js", [("Accept-Encoding", "gzip, deflate, br")])
        #expect(identity.response.header("Content-Encoding") == nil)
        #expect(identity.response.header("Content-Length") == String(Self.script.count))
        #expect(gzipped.response.header("Content-Encoding") == "gzip")
        #expect(gzipped.response.header("Content-Length") == String(gzip.count))
        #expect(brotlied.response.header("Content-Encoding") == "br")
        #expect(brotlied.response.header("Content-Length") == String(brotli.count))
        for answer in [identity, gzipped, brotlied] {
            #expect(answer.response.header("Vary") == "Accept-Encoding")
            #expect(answer.response.header("Content-Type") == "text/javascript; charset=utf-8")
        }
        let tags = Set([identity, gzipped, brotlied].compactMap { $0.response.header("ETag") })
        #expect(tags.count == 3, "each representation needs its own ETag: \(tags)")
        #expect(try answer("js/plain.js", [("Accept-Encoding", "gzip, br")]).response.header("Vary") == nil)
        let sitemap = try answer("sitemap.xml", [("Accept-Encoding", "gzip")])
        #expect(sitemap.response.header("Content-Encoding") == nil, "a sibling larger than the file went out")
        #expect(sitemap.response.header("Content-Length") == "9")

        // Validators and ranges belong to the representation chosen.
        let gzipTag = try #require(gzipped.response.header("ETag"))
        let revalidated = try answer("js/app.js", [("Accept-Encoding", "gzip"), ("If-None-Match", gzipTag)])
        #expect(revalidated.response.status == 304)
        #expect(revalidated.response.header("Vary") == "Accept-Encoding")
        #expect(try answer("js/app.js", [("If-None-Match", gzipTag)]).response.status == 200)
        let ranged = try answer("js/app.js", [("Accept-Encoding", "gzip"), ("Range", "bytes=0-9")])
        #expect(ranged.response.status == 206)
        #expect(ranged.response.header("Content-Range") == "bytes 0-9/\(gzip.count)")
        // A fingerprinted name keeps its cache policy in every coding.
        let hashed = try answer("js/app.3f2a9c1b.js", [("Accept-Encoding", "gzip")])
        #expect(hashed.response.header("Content-Encoding") == "gzip")
        #expect(hashed.response.header("Cache-Control") == CachePolicy.immutable)
    }

    private func write(_ files: [String: [UInt8]], under root: String) throws {
        for (path, bytes) in files {
            let file = root + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        }
    }

    private func unzipped(_ zip: String, _ name: String) throws -> String {
        try runCommand("/usr/bin/unzip", ["-p", zip, name])
    }
}
