import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What caches are told about local answers: `Last-Modified`, If-Modified-Since,
/// and the `Cache-Control` policy for versioned package files.
@Suite struct CachingTests {
    let sandbox: ResolveSandbox
    let resolver: Resolver

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("<h1>hi</h1>".utf8), "js/app.3f2a9c1b.js": Array("hashed".utf8),
        ])
        resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
    }

    func answer(_ path: String, _ headers: [(name: String, value: String)] = []) throws -> ResourceResponse {
        let request = ResourceRequest(url: "app://www.example.com/app/" + path, headers: headers)
        return try #require(try resolver.answerLocally(request)).response
    }

    @Test func httpDatesAreWrittenAsIMFFixdateAndReadInAllThreeForms() {
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(1_795_000_000)) == 1_795_000_000)
        for form in ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"] {
            #expect(HTTPDate.parse(form) == 784_111_777, "\(form)")
        }
        for broken in ["", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
                       "Sunday, 6-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49 1994", "Sun, 32 Nov 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(broken) == nil, "\(broken)")
        }
    }

    /// Found by the http-date fuzz target (Fuzz/regressions/http-date): a year below 1000
    /// was written with fewer than four digits, which no parser (this one included) reads
    /// back, signed numbers were read as if they were digits, and a leap second at the end
    /// of 9999 was read as a date of year 10000.
    @Test func httpDatesKeepFourDigitYearsAndRefuseSignedNumbers() throws {
        let early = try #require(HTTPDate.parse("Mon, 29 Feb 0044 23:59:60 GMT"))
        #expect(HTTPDate.format(early) == "Tue, 01 Mar 0044 00:00:00 GMT")
        #expect(HTTPDate.parse(HTTPDate.format(early)) == early)
        #expect(HTTPDate.format(-62_167_219_200) == "Sat, 01 Jan 0000 00:00:00 GMT")
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == 253_402_300_799)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:60 GMT") == nil)
        for signed in ["Sun, 06 Nov -994 08:49:37 GMT", "Sun, 06 Nov +994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
                       "Sun, 06 Nov 1994 +8:49:37 GMT", "Sunday, 06-Nov-+4 08:49:37 GMT", "Sun Nov -6 08:49:37 1994"] {
            #expect(HTTPDate.parse(signed) == nil, "\(signed)")
        }
    }

    @Test(arguments: [
        ("js/app.3f2a9c1b.js", true), ("css/main-5d41402abc4b2a76.css", true),
        ("js/app.js", false), ("img/logo.png", false), ("js/build-20240101.js", false),
        ("js/deadbeef12.js", false), ("assets/index-BDoW_Vkf.js", true), ("js/app.3F2A9C1B.js", true),
        ("js/app.validate.js", false),
    ])
    func contentHashedNamesAreRecognised(path: String, hashed: Bool) {
        #expect(CachePolicy.isFingerprinted(path) == hashed)
    }

    @Test func packageFilesRevalidateAndHashedOnesAreImmutable() throws {
        #expect(try answer("index.html").header("Cache-Control") == "no-cache")
        #expect(try answer("js/app.3f2a9c1b.js").header("Cache-Control") == "max-age=31536000, immutable")
    }

    /// `pack --immutable GLOB`: what no name rule should guess, the publisher says; the
    /// manifest carries it to the device and the resolver answers those files as immutable.
    @Test func filesThePublisherMarksImmutableAreAnsweredSo() throws {
        let temp = try TemporaryDirectory()
        let source = temp.path + "/site", origin = temp.path + "/origin"
        for path in ["index.html", "fonts/Inter.woff2", "fonts/sub/Mono.woff2", "js/app.js"] {
            _ = try temp.write(Array("content of \(path)".utf8), to: "site/" + path)
        }
        let packed = try PkgctlProcess.run(["pack", source, "--name", "site", "--version", "1", "--out", origin,
                                            "--route", "www.example.com", "--immutable", "fonts/*"])
        #expect(packed.status == 0, "\(packed.stderr)")
        let manifest = try #require(try PublishedManifest.read(origin + "/manifest.json")).manifest
        #expect(manifest.packages.first?.immutable == ["fonts/*"])
        let store = PackageStore(root: temp.path + "/store")
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
        let resolver = try Resolver(store: store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        func cacheControl(_ path: String) throws -> String? {
            try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/" + path))?.response.header("Cache-Control")
        }
        #expect(try cacheControl("fonts/Inter.woff2") == CachePolicy.immutable)
        #expect(try cacheControl("fonts/sub/Mono.woff2") == CachePolicy.immutable, "* crosses /")
        #expect(try cacheControl("js/app.js") == CachePolicy.revalidate)
        #expect(try cacheControl("index.html") == CachePolicy.revalidate)

        let typo = try PkgctlProcess.run(["pack", source, "--name", "site", "--version", "2", "--out", origin,
                                          "--immutable", "font/*"])
        #expect(typo.status == 1)
        #expect(typo.stderr == "pkgctl: immutable 'font/*' matches no file of \(source)\n")
    }

    @Test func ifModifiedSinceIsAnsweredWhenNoETagIsAsked() throws {
        let full = try answer("index.html")
        let lastModified = try #require(full.header("Last-Modified"))
        let seconds = try #require(HTTPDate.parse(lastModified))
        let notModified = try answer("index.html", [("If-Modified-Since", lastModified)])
        #expect(notModified.status == 304)
        #expect(notModified.header("Last-Modified") == lastModified)
        #expect(notModified.header("Cache-Control") == "no-cache")
        #expect(notModified.header("ETag") == full.header("ETag"))
        #expect(try answer("index.html", [("If-Modified-Since", HTTPDate.format(seconds - 1))]).status == 200)
        // If-None-Match decides when both are sent.
        #expect(try answer("index.html", [("If-None-Match", "\"other\""), ("If-Modified-Since", lastModified)]).status == 200)
    }
}
