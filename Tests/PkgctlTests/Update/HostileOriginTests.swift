import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A hostile origin (TUF's attack catalogue, §1.5.2) against `Updater`: each
/// attack fails with an error naming what happened and where, within bounds of
/// time and memory, and the active version keeps serving.
@Suite struct HostileOriginTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
    }

    func updater(_ manifestURL: String, caFile: String? = nil, timeLimit: TimeInterval? = nil,
                 trust: TrustPolicy = TrustPolicy(), now: Date = Date()) -> Updater {
        Updater(store: store, manifestURL: manifestURL,
                transfer: TransferOptions(caFile: caFile, connectTimeout: 2, stallTimeout: 2, maxAttempts: 1,
                                          retryBaseDelay: 0.05),
                trust: trust, clock: { now }, timeLimit: timeLimit)
    }

    /// Installs 1.0.0 from the well-behaved path, so every attack below has a version to leave alone.
    func installFirst(_ origin: HostileOrigin) throws {
        #expect(try updater(origin.baseURL + "/manifest.json").run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
    }

    // MARK: - Endless data (TUF §5.3.3: metadata is read up to a bound)

    @Test func anEndlessOrInflatingManifestIsRefusedAtTheBound() throws {
        let origin = try HostileOrigin(root: originRoot)
        try installFirst(origin)
        for path in ["/endless/manifest.json", "/inflating/manifest.json"] {
            let started = Date()
            let error = #expect(throws: PkgError.self) { try updater(origin.baseURL + path).run() }
            #expect(error?.code == .responseTooLarge, "\(path)")
            #expect(error?.message == "GET \(origin.baseURL + path): the answer is larger than 1048576 bytes "
                    + "(counted after decoding); refused")
            #expect(Date().timeIntervalSince(started) < 10, "cut at the bound, not read to the end")
            #expect(store.activeVersion(of: "demo") == "1.0.0")
        }
    }

    // MARK: - Slow retrieval

    @Test func aManifestOrZipThatDripsIsCutOffAtTheMinimumRate() throws {
        var zip = ""
        try BundleFixtures.editManifest(in: originRoot) {
            zip = $0.packages[0].url
            $0.packages[0].url = "drip/" + zip
        }
        let origin = try HostileOrigin(root: originRoot)
        let manifestURL = origin.baseURL + "/drip/manifest.json"
        let started = Date()
        let error = #expect(throws: PkgError.self) { try updater(manifestURL).run() }
        #expect(error?.code == .tooSlow)
        #expect(error?.message == "GET \(manifestURL): slower than 1024 bytes/s over 2 s (the minimum rate); cut off")
        #expect(Date().timeIntervalSince(started) < 15)

        let zipURL = origin.baseURL + "/drip/" + zip
        let report = try updater(origin.baseURL + "/manifest.json").run()
        #expect(report.packages.map(\.errorCode) == ["tooSlow"])
        #expect(report.packages.first?.error?.contains("GET \(zipURL): slower than 1024 bytes/s") == true,
                "\(report.packages)")
        #expect(store.activeVersion(of: "demo") == nil)
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty, "no staging debris")
    }

    @Test func deltaObjectsThatDripAreCutOffAtTheMinimumRate() throws {
        let origin = try HostileOrigin(root: originRoot)
        // A new release line on this origin: 1.0.0 as the suite published it is not re-packed with other bytes.
        try BundleFixtures.forgetPublishedReleases(in: originRoot)
        // Both versions: the demo plus 100 KB that does not compress and does not change, so the
        // changed files as objects cost less than the zip, and the update goes by objects.
        for version in ["1.0.0", "1.1.0"] {
            let source = temp.path + "/demo-" + version
            try FileManager.default.copyItem(atPath: BundleFixtures.demoSource(version), toPath: source)
            try BundleFixtures.makeTree(at: source + "/media", files: 1, size: 100_000)
            try PublishingFolder(originRoot).pack(source: source, name: "demo", version: version, options: .init(routes: ["www.example.com/app"], deltaFrom: 0))
            if version == "1.0.0" { try installFirst(origin) }
        }
        let report = try updater(origin.baseURL + "/drip-objects/manifest.json").run()
        #expect(report.packages.map(\.errorCode) == ["tooSlow"], "\(report.packages)")
        #expect(report.packages.first?.error?.contains("\(origin.baseURL)/drip-objects/objects/") == true,
                "\(report.packages)")
        #expect(report.packages.first?.error?.contains("slower than 1024 bytes/s over 2 s") == true)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
    }

    @Test func theDeadlineStopsARunThatKeepsAboveTheMinimumRate() throws {
        // 60 KB at 2,000 bytes/s would take 30 s; the run may take 3.
        let source = temp.path + "/big"
        try BundleFixtures.makeTree(at: source, files: 1, size: 60_000)
        let published = try PublishingFolder(originRoot).pack(source: source, name: "big", version: "1.0.0")
        try BundleFixtures.editManifest(in: originRoot) { manifest in
            manifest.packages = manifest.packages.map { entry in
                var entry = entry
                if entry.name == "big" { entry.url = "trickle/" + entry.url }
                return entry
            }
        }
        let origin = try HostileOrigin(root: originRoot)
        let started = Date()
        let report = try updater(origin.baseURL + "/manifest.json", timeLimit: 3).run()
        let elapsed = Date().timeIntervalSince(started)
        let big = try #require(report.packages.first { $0.name == "big" })
        #expect(big.errorCode == "deadlineExceeded")
        #expect(big.error == "big 1.0.0: GET \(origin.baseURL)/trickle/\(published.url): stopped at the run's deadline "
                + "(3s after it began)")
        #expect(elapsed > 2.5 && elapsed < 8, "\(elapsed)")
        #expect(store.activeVersion(of: "big") == nil)
        // The lock was let go: another run takes it at once.
        #expect(try store.locked(wait: false) { true })
    }

    // MARK: - Freeze through 304 (TUF §5.3.10)

    @Test func a304IsNoAnswerOnceTheAcceptedManifestExpiredOrWhenNothingWasAsked() throws {
        let fixtures = SigningFixtures(in: temp.path)
        try fixtures.makeKey("release")
        try SigningFixtures.publishDemo("1.0.0", into: originRoot, signer: try fixtures.signer("release", validity: 7 * 86_400))
        let origin = try HostileOrigin(root: originRoot)
        let trust = try fixtures.policy("release")
        #expect(try updater(origin.baseURL + "/manifest.json", trust: trust).run().succeeded)
        let frozen = origin.baseURL + "/always-304/manifest.json"

        let unasked = #expect(throws: PkgError.self) { try updater(frozen, trust: trust).run() }
        #expect(unasked?.message == "GET \(frozen): HTTP 304 Not Modified to a request that was not conditional")

        for days in [40.0, 400.0] {
            let later = Date().addingTimeInterval(days * 86_400)
            let error = #expect(throws: PkgError.self) { try updater(frozen, trust: trust, now: later).run() }
            #expect(error?.code == .untrustedManifest)
            #expect(error?.message.contains("the origin answered 304 Not Modified, but the manifest this store accepted "
                                            + "expired at ") == true, "\(String(describing: error))")
        }
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        let accepted = try #require(try store.acceptedManifest())
        #expect(abs(accepted.expires.timeIntervalSinceNow - 7 * 86_400) < 120)
    }

    // MARK: - Downgraded redirects

    @Test func anHTTPSManifestRedirectedToPlainHTTPIsRefused() throws {
        let origin = try HostileOrigin(root: originRoot, tls: true)
        let tlsBase = try #require(origin.tlsBaseURL)
        // Over https as such, the manifest is used...
        #expect(try updater(tlsBase + "/manifest.json", caFile: origin.caFile).run().succeeded)
        // ...but not when https leads to http.
        let url = tlsBase + "/to-http/manifest.json"
        let error = #expect(throws: PkgError.self) { try updater(url, caFile: origin.caFile).run() }
        #expect(error?.code == .transferFailed)
        #expect(error?.message == "GET \(url): refused the redirect to '\(origin.baseURL)/manifest.json': "
                + "an https URL may redirect only to https")
        // Plain http may still redirect to http.
        #expect(try updater(origin.baseURL + "/to-http/manifest.json").run().manifest == .fetched)
    }

    // MARK: - A header past libcurl's bound

    @Test func aHugeHeaderLineIsNamedAsSuchNotAsOutOfMemory() throws {
        let origin = try HostileOrigin(root: originRoot)
        let url = origin.baseURL + "/huge-header/manifest.json"
        let error = #expect(throws: PkgError.self) { try updater(url).run() }
        #expect(error?.code == .responseTooLarge)
        #expect(error?.message == "GET \(url): the origin's response header is larger than libcurl's limit of "
                + "100 KB a line; refused")
    }

    // MARK: - Validators too weak to stand for the manifest (RFC 9110 §8.8.2.2)

    /// nginx's ETag is the file's mtime in seconds and its size: two same-size manifests
    /// written in one second share it. A device that polled between them must not
    /// take a 304 for the second.
    @Test func twoSameSizePublishesInOneSecondAreBothSeen() throws {
        let publisher = PublishingFolder(originRoot)
        _ = try publisher.pack(source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.1.0", options: .init(routes: ["www.example.com/app"], rolloutPercent: 10))
        let manifestPath = originRoot + "/manifest.json"
        let rollout = try #require(try PublishedManifest.read(manifestPath)?.manifest.packages.first?.rollout)
        let device = try #require((0..<2000).lazy.map { "device-\($0)" }.first { id in
            !Rollout(percent: 10, salt: rollout.salt, previous: nil).includes(deviceID: id)
                && Rollout(percent: 90, salt: rollout.salt, previous: nil).includes(deviceID: id)
        })
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        func poll() throws -> UpdateReport {
            var updater = updater(origin.baseURL + "/manifest.json")
            updater.deviceID = device
            return try updater.run()
        }
        // Both writes carry the mtime of the second in which the device polls between them.
        while Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 1) > 0.2 { usleep(20_000) }
        let second = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        try FileManager.default.setAttributes([.modificationDate: second], ofItemAtPath: manifestPath)
        let sizeAtTen = try FileSystem.read(manifestPath)?.count
        // At 10 % this device is left out and gets 1.0.0...
        #expect(try poll().packages.first?.to == "1.0.0")
        // ...then 90 % lets it in: same size, same second, so nginx's ETag is the same.
        _ = try publisher.setRollout(name: "demo", percent: 90)
        try FileManager.default.setAttributes([.modificationDate: second], ofItemAtPath: manifestPath)
        #expect(try FileSystem.read(manifestPath)?.count == sizeAtTen)
        let report = try poll()
        #expect(report.manifest == .fetched, "\(origin.accessLog())")
        #expect(report.packages.first?.action == .upgraded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(origin.settledAccessLog().filter { $0.hasPrefix("/manifest.json 304") }.isEmpty, "\(origin.accessLog())")
    }
}
