import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// An OUT_DIR as `pkgctl publish` lays it out, under the URL prefix `/pkgctl` of a test
/// origin's root: every file but manifest.json and timestamp.json named by its SHA-256,
/// and the legacy version-named files of older pkgctl versions beside them.
struct PublishedFolder {
    let root: TemporaryDirectory
    /// URL paths (from the origin's root) of each kind of file.
    let object, zip, index, delta, archivedManifest: String
    let manifest = "/pkgctl/manifest.json", timestamp = "/pkgctl/timestamp.json"
    let legacyZip = "/pkgctl/demo-1.0.0.zip", legacyIndex = "/pkgctl/index/demo-1.0.0.json"
    /// A content-named object that is not uploaded (yet).
    let missingObject: String
    let report = "/pkgctl/report/v1?v=1&p=demo&to=1.0.0&a=installed"

    /// Text that gzip shrinks, at least 256 bytes (nginx's gzip_min_length in the include).
    static func compressible(_ seed: String) -> [UInt8] {
        Array(String(repeating: "{\"path\":\"js/app.js\",\"seed\":\"\(seed)\"}\n", count: 40).utf8)
    }

    static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).hexString }

    init() throws {
        let root = try TemporaryDirectory(prefix: "pkgctl-origin-config")
        self.root = root
        func put(_ bytes: [UInt8], _ path: String) throws -> String {
            try root.write(bytes, to: "pkgctl/" + path)
            return "/pkgctl/" + path
        }
        let file = Self.compressible("object")
        let hash = Self.sha256(file)
        object = try put(file, "objects/\(hash.prefix(2))/\(hash)")
        let zipBytes = Self.compressible("zip")
        zip = try put(zipBytes, "zips/demo-1.0.0.\(Self.sha256(zipBytes)).zip")
        let indexBytes = Self.compressible("index")
        index = try put(indexBytes, "index/demo-1.0.0.\(Self.sha256(indexBytes)).json")
        let deltaBytes = Self.compressible("delta")
        delta = try put(deltaBytes, "deltas/\(Self.sha256([1]))-\(Self.sha256([2])).\(Self.sha256(deltaBytes)).pkgdelta")
        let manifestBytes = Self.compressible("manifest 1")
        archivedManifest = try put(manifestBytes, "manifests/\(Self.sha256(manifestBytes)).json")
        _ = try put(manifestBytes, "manifest.json")
        _ = try put(Self.compressible("timestamp"), "timestamp.json")
        _ = try put(zipBytes, "demo-1.0.0.zip")
        _ = try put(indexBytes, "index/demo-1.0.0.json")
        let missing = Self.sha256(Self.compressible("not uploaded"))
        missingObject = "/pkgctl/objects/\(missing.prefix(2))/\(missing)"
    }

    /// Replaces the file at URL path `path` as publish does (a new file renamed over it).
    func replace(_ path: String, with bytes: [UInt8]) throws {
        let target = root.path + path
        try Data(bytes).write(to: URL(fileURLWithPath: target + ".new"))
        try FileManager.default.removeItem(atPath: target)
        try FileManager.default.moveItem(atPath: target + ".new", toPath: target)
    }

    /// Writes the file at URL path `path` (one that was missing).
    func upload(_ path: String, _ bytes: [UInt8]) throws {
        try root.write(bytes, to: String(path.dropFirst()))
    }
}

/// `packaging/origin/nginx.conf`, the include the .deb ships for an origin's server block,
/// in a real nginx: each class of published file gets its Cache-Control, compression where
/// it pays, reports are answered 204 and logged, and a 404 is never cached.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
struct OriginConfigTests {
    static let immutable = "public, max-age=31536000, immutable"
    static let shortLived = "public, max-age=10, stale-if-error=86400"

    @Test func eachClassOfFileGetsItsCacheControl() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, accessLog: true, originConfig: true)
        defer { origin.stop() }
        let expected = [
            folder.object: Self.immutable, folder.zip: Self.immutable, folder.index: Self.immutable,
            folder.delta: Self.immutable, folder.archivedManifest: Self.immutable,
            folder.manifest: Self.shortLived, folder.timestamp: Self.shortLived,
            folder.legacyZip: "no-cache", folder.legacyIndex: "no-cache",
        ]
        for (path, cacheControl) in expected {
            let answer = try HTTPExchange.curl(origin.baseURL + path)
            #expect(answer.status == 200, "\(path)")
            #expect(answer.header("Cache-Control") == cacheControl, "\(path): \(answer.headers)")
            // Validators, so a cache past max-age revalidates with a 304.
            #expect(answer.header("ETag") != nil && answer.header("Last-Modified") != nil, "\(path)")
        }
        #expect(try HTTPExchange.curl(origin.baseURL + folder.object).header("Content-Type") == "application/octet-stream")
        // A revalidation of the manifest costs a 304, which keeps its Cache-Control.
        let etag = try #require(try HTTPExchange.curl(origin.baseURL + folder.manifest).header("ETag"))
        let revalidated = try HTTPExchange.curl(origin.baseURL + folder.manifest, ["-H", "If-None-Match: \(etag)"])
        #expect(revalidated.status == 304 && revalidated.header("Cache-Control") == Self.shortLived, "\(revalidated.headers)")
    }

    @Test func objectsIndexesAndManifestsGoOutGzippedButZipsAndDeltasDoNot() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, originConfig: true)
        defer { origin.stop() }
        let gzip = ["-H", "Accept-Encoding: gzip"]
        // Through a CDN too: its request carries Via, which nginx's gzip_proxied would refuse by default.
        let viaCDN = gzip + ["-H", "Via: 1.1 edge.example.net (CloudFront)"]
        for path in [folder.object, folder.index, folder.archivedManifest, folder.manifest, folder.timestamp] {
            for arguments in [gzip, viaCDN] {
                let answer = try HTTPExchange.curl(origin.baseURL + path, arguments)
                #expect(answer.header("Content-Encoding") == "gzip", "\(path) \(arguments): \(answer.headers)")
                #expect(answer.header("Vary") == "Accept-Encoding", "\(path)")
            }
            #expect(try HTTPExchange.curl(origin.baseURL + path).header("Content-Encoding") == nil, "\(path) without Accept-Encoding")
        }
        // Already compressed (zip, zstd): sent as they are, whatever the client accepts.
        for path in [folder.zip, folder.delta, folder.legacyZip] {
            let answer = try HTTPExchange.curl(origin.baseURL + path, gzip)
            #expect(answer.status == 200 && answer.header("Content-Encoding") == nil, "\(path): \(answer.headers)")
        }
    }

    @Test func reportsAreAnswered204NoStoreAndLoggedWithTheirQuery() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, accessLog: true, originConfig: true)
        defer { origin.stop() }
        let answer = try HTTPExchange.curl(origin.baseURL + folder.report)
        #expect(answer.status == 204 && answer.body.isEmpty, "\(answer.status)")
        #expect(answer.header("Cache-Control") == "no-store")
        #expect(origin.settledAccessLog().contains { $0.hasPrefix(folder.report + " 204 ") }, "\(origin.accessLog())")
        // The combined log, which `pkgctl fleet report` reads, has the query in its request line.
        let combined = try String(contentsOfFile: try #require(origin.combinedAccessLogPath), encoding: .utf8)
        #expect(combined.contains("\"GET \(folder.report) HTTP/1.1\" 204 "), "\(combined)")
    }

    @Test func aMissingFileIsA404ThatNoCacheKeeps() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, originConfig: true)
        defer { origin.stop() }
        for path in [folder.missingObject, "/pkgctl/zips/demo-2.0.0.\(PublishedFolder.sha256([3])).zip",
                     "/pkgctl/missing/manifest.json", "/pkgctl/missing/timestamp.json"] {
            let answer = try HTTPExchange.curl(origin.baseURL + path)
            #expect(answer.status == 404 && answer.header("Cache-Control") == "no-store", "\(path): \(answer.headers)")
        }
        // Anything else that is missing: no-cache (a cache must ask again before reusing it).
        let other = try HTTPExchange.curl(origin.baseURL + "/pkgctl/demo-2.0.0.zip")
        #expect(other.status == 404 && other.header("Cache-Control") == "no-cache", "\(other.headers)")
    }
}

/// The same origin behind a real shared cache (``VarnishCache``, a CDN's edge): what devices
/// see when manifest.json changes, with and without the shipped include.
@Suite
struct OriginConfigThroughACacheTests {
    /// The problem of issue 34: nginx's defaults send no Cache-Control, and the cache keeps
    /// the old manifest for its default TTL (24 h here, as on CloudFront).
    @Test func withoutTheIncludeAChangedManifestStaysStaleInTheCache() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path)
        let cdn = try VarnishCache(originPort: origin.port)
        defer { cdn.stop(); origin.stop() }
        let before = PublishedFolder.compressible("manifest 1"), after = PublishedFolder.compressible("manifest 2!")
        #expect(try HTTPExchange.curl(cdn.baseURL + folder.manifest).body == Data(before))
        try folder.replace(folder.manifest, with: after)
        Thread.sleep(forTimeInterval: 3)
        #expect(try HTTPExchange.curl(origin.baseURL + folder.manifest).body == Data(after))
        let cached = try HTTPExchange.curl(cdn.baseURL + folder.manifest)
        #expect(cached.body == Data(before), "the cache fetched the new manifest: \(cached.headers)")
        #expect(Int(cached.header("Age") ?? "") ?? 0 >= 2, "\(cached.headers)")
    }

    /// With the include: the new manifest reaches the edge within max-age (10 s) + 1 s; until
    /// then the cache answers (it does cache it), and an unchanged timestamp.json past its
    /// max-age costs the origin a 304.
    @Test func withTheIncludeAChangedManifestIsFreshWithinItsMaxAge() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, accessLog: true, originConfig: true)
        let cdn = try VarnishCache(originPort: origin.port)
        defer { cdn.stop(); origin.stop() }
        let before = PublishedFolder.compressible("manifest 1"), after = PublishedFolder.compressible("manifest 2!")
        #expect(try HTTPExchange.curl(cdn.baseURL + folder.manifest).body == Data(before))
        #expect(try HTTPExchange.curl(cdn.baseURL + folder.timestamp).status == 200)
        let timestampCached = Date()
        try folder.replace(folder.manifest, with: after)
        let changed = Date()
        let first = try HTTPExchange.curl(cdn.baseURL + folder.manifest)
        #expect(first.body == Data(before), "not answered from the cache: \(first.headers)")
        #expect(first.header("X-Varnish")?.split(separator: " ").count == 2, "\(first.headers)")
        var fresh = false
        while !fresh, Date().timeIntervalSince(changed) < 13 {
            Thread.sleep(forTimeInterval: 0.2)
            fresh = try HTTPExchange.curl(cdn.baseURL + folder.manifest).body == Data(after)
        }
        let took = Date().timeIntervalSince(changed)
        #expect(fresh && took <= 11, "the new manifest took \(took) s to reach the cache")
        // timestamp.json went into the cache after the manifest: past its own max-age too, it is revalidated.
        Thread.sleep(forTimeInterval: max(0, 11 - Date().timeIntervalSince(timestampCached)))
        #expect(try HTTPExchange.curl(cdn.baseURL + folder.timestamp).status == 200)
        let log = origin.settledAccessLog()
        #expect(log.contains { $0.hasPrefix(folder.timestamp + " 304 ") }, "no revalidation: \(log)")
    }

    /// Content-named files come from the cache after the first request; a report reaches
    /// the origin every time; a 404 is not kept, so a file uploaded after it is served.
    @Test func contentNamedFilesAreCachedReportsAndMissesReachTheOrigin() throws {
        let folder = try PublishedFolder()
        let origin = try NginxOrigin(root: folder.root.path, accessLog: true, originConfig: true)
        let cdn = try VarnishCache(originPort: origin.port)
        defer { cdn.stop(); origin.stop() }
        let gzip = ["-H", "Accept-Encoding: gzip"]
        let miss = try HTTPExchange.curl(cdn.baseURL + folder.object, gzip)
        #expect(miss.status == 200 && miss.header("Cache-Control") == OriginConfigTests.immutable, "\(miss.headers)")
        Thread.sleep(forTimeInterval: 1.1)
        let hit = try HTTPExchange.curl(cdn.baseURL + folder.object, gzip)
        #expect(hit.header("X-Varnish")?.split(separator: " ").count == 2, "not a hit: \(hit.headers)")
        #expect(Int(hit.header("Age") ?? "") ?? 0 >= 1, "\(hit.headers)")
        #expect(hit.header("Content-Encoding") == "gzip" && hit.body == miss.body)

        for _ in 0..<3 {
            let answer = try HTTPExchange.curl(cdn.baseURL + folder.report)
            #expect(answer.status == 204, "\(answer.headers)")
        }

        let notYet = try HTTPExchange.curl(cdn.baseURL + folder.missingObject)
        #expect(notYet.status == 404, "\(notYet.headers)")
        try folder.upload(folder.missingObject, PublishedFolder.compressible("not uploaded"))
        let uploaded = try HTTPExchange.curl(cdn.baseURL + folder.missingObject)
        #expect(uploaded.status == 200, "the cache kept the 404: \(uploaded.headers)")

        let log = origin.settledAccessLog()
        #expect(log.filter { $0.hasPrefix(folder.object + " ") }.count == 1, "\(log)")
        #expect(log.filter { $0.hasPrefix(folder.report + " 204 ") }.count == 3, "\(log)")
    }
}
