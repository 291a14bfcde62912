import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite struct ManifestTests {
    private let hash = String(repeating: "ab", count: 32)

    @Test func parsesV1AndIgnoresUnknownFields() throws {
        let json = """
            { "schemaVersion": 1, "generator": "ci",
              "packages": [ { "name": "demo", "version": "1.2.0", "url": "demo-1.2.0.zip",
                              "sha256": "\(hash)", "size": 123456, "routes": ["www.example.com/app"],
                              "channel": "beta" } ] }
            """
        let manifest = try Manifest.parse(Array(json.utf8), source: "m.json")
        #expect(manifest.packages == [ManifestEntry(name: "demo", version: "1.2.0", url: "demo-1.2.0.zip",
                                                    sha256: hash, size: 123456, routes: ["www.example.com/app"])])
    }

    @Test(arguments: [
        ("{", "top level: The given data was not valid JSON"),
        (#"{"schemaVersion": 1}"#, "packages: missing"),
        (#"{"schemaVersion": 4, "packages": []}"#, "schemaVersion 4 is not supported (expected 1 to 3)"),
        (#"{"schemaVersion": 1, "packages": [{"name": "demo"}]}"#, "version: missing"),
        (#"{"schemaVersion": 1, "packages": [{"name": "demo", "version": "1", "url": "u", "sha256": "x", "size": 1}]}"#,
         "sha256 must be 64"),
        (#"{"schemaVersion": 1, "packages": [{"name": "../etc", "version": "1", "url": "u", "sha256": "x", "size": 1}]}"#,
         "name must be"),
        (#"{"schemaVersion": 1, "packages": [{"name": "demo", "version": "current", "url": "u", "sha256": "\#(String(repeating: "ab", count: 32))", "size": 1}]}"#,
         "version 'current' is reserved"),
        (#"{"schemaVersion": 1, "packages": [{"name": "demo", "version": "1", "url": "u", "sha256": "x", "size": -1}]}"#,
         "packages[0].size: must be a non-negative number of bytes"),
    ])
    func refusesMalformedManifests(json: String, expected: String) {
        let error = #expect(throws: PkgError.self) { try Manifest.parse(Array(json.utf8), source: "m.json") }
        #expect(error?.code == .malformedManifest)
        #expect(error?.message.hasPrefix("manifest m.json: ") == true)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\n") == false)
    }

    @Test(arguments: [
        ("www.example.com", "www.example.com", ""),
        ("WWW.Example.com/App/", "www.example.com", "/App"),
        ("localhost:8080/app//", "localhost:8080", "/app"),
        ("cdn.example.org/", "cdn.example.org", ""),
        ("www.example.com/a/b", "www.example.com", "/a/b"),
    ])
    func parsesARouteOnce(text: String, host: String, prefix: String) throws {
        let route = try #require(PackageRoute(text))
        #expect(route.host == host)
        #expect(route.prefix == prefix)
    }

    @Test(arguments: ["", "/app", "https://www.example.com/app"])
    func refusesARouteThatIsNotHostAndPath(text: String) throws {
        #expect(PackageRoute(text) == nil)
        let json = """
            {"schemaVersion": 1, "packages": [{"name": "demo", "version": "1", "url": "u", "sha256": "\(hash)",
             "size": 1, "routes": ["\(text)"]}]}
            """
        let error = #expect(throws: PkgError.self) { try Manifest.parse(Array(json.utf8), source: "m.json") }
        #expect(error?.message.contains("route '\(text)' must be HOST or HOST/PATH without a scheme") == true,
                "\(error?.message ?? "")")
    }

    @Test func packageHeadersParseFromTheCommandLineAndRefuseWhatTheServerOwns() throws {
        let header = try #require(PackageHeader(argument: "*.html: Content-Security-Policy: default-src 'self'"))
        #expect(header == PackageHeader(files: "*.html", name: "Content-Security-Policy", value: "default-src 'self'"))
        #expect(PackageHeader(argument: "a:b.html: X-Frame-Options: DENY")?.files == "a:b.html")
        #expect(PackageHeader(argument: "no header here") == nil)
        for (files, name, value, reason) in [
            ("*", "Content-Length", "5", "Content-Length is written by the server"),
            ("*", "transfer-encoding", "chunked", "is written by the server"), ("*", "ETag", "\"x\"", "written by the server"),
            ("*", "Connection", "close", "written by the server"), ("*", "Cache-Control", "no-store", "written by the server"),
            ("*", "X Bad", "1", "is not a header name"), ("*", "X-Split", "a\r\nSet-Cookie: x=1", "without control characters"),
            ("/etc/*", "X-Ok", "1", "is not a relative glob"),
        ] {
            var entry = ManifestEntry(name: "demo", version: "1", url: "u", sha256: hash, size: 1)
            entry.headers = [PackageHeader(files: files, name: name, value: value)]
            let error = #expect(throws: PkgError.self) { try entry.validate(source: "m.json") }
            #expect(error?.message.contains(reason) == true && error?.message.contains("\n") == false, "\(error?.message ?? "")")
        }
    }

    @Test func refusesDuplicatePackages() {
        let entry = #"{"name": "demo", "version": "1", "url": "u", "sha256": "\#(hash)", "size": 1}"#
        let json = #"{"schemaVersion": 1, "packages": [\#(entry), \#(entry)]}"#
        let error = #expect(throws: PkgError.self) { try Manifest.parse(Array(json.utf8), source: "m.json") }
        #expect(error?.message.contains("'demo' is listed twice") == true)
    }

    @Test func resolvesRelativeAndAbsoluteURLs() throws {
        var entry = ManifestEntry(name: "demo", version: "1", url: "bundles/demo-1.zip", sha256: hash, size: 1)
        #expect(try entry.resolvedURL(relativeTo: "https://cdn.example.com/app/manifest.json")
                == "https://cdn.example.com/app/bundles/demo-1.zip")
        #expect(try entry.resolvedURL(relativeTo: "file:///srv/origin/manifest.json") == "file:///srv/origin/bundles/demo-1.zip")
        entry.url = "http://127.0.0.1:9/x.zip"
        #expect(try entry.resolvedURL(relativeTo: "https://cdn.example.com/manifest.json") == "http://127.0.0.1:9/x.zip")
    }

    @Test func ordersVersionsNumerically() {
        let ascending = ["0.9", "1.0.0-alpha", "1.0.0-beta.2", "1.0.0-beta.10", "1.0.0", "1.0.1", "1.2", "1.10.0", "2"]
        for (lower, higher) in zip(ascending, ascending.dropFirst()) {
            #expect(PackageVersion(lower) < PackageVersion(higher), "\(lower) < \(higher)")
            #expect(!(PackageVersion(higher) < PackageVersion(lower)))
        }
        #expect(PackageVersion("1.0") == PackageVersion("1.0.0"))
        #expect(PackageVersion("01.2") == PackageVersion("1.2"))
    }

    @Test func defaultRootFollowsEnvironment() {
        #expect(StoreLayout.defaultRoot(environment: ["PKGCTL_ROOT": "/srv/pkg", "HOME": "/home/u"]) == "/srv/pkg")
        #expect(StoreLayout.defaultRoot(environment: ["XDG_DATA_HOME": "/x/data", "HOME": "/home/u"]) == "/x/data/pkgctl")
        #expect(StoreLayout.defaultRoot(environment: ["HOME": "/home/u"]) == "/home/u/.local/share/pkgctl")
    }
}
