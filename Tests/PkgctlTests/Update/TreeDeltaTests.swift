import CCompression
import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Tree deltas against a real nginx, whose access log shows the requests: a device
/// on the release the publisher expected fetches one file besides the manifest; a
/// missing, foreign or hostile delta is never trusted and the next way is used.
@Suite struct TreeDeltaTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
    }

    /// A bundler's output: 30 chunks whose names carry a hash of their content. Version
    /// `n` rewrites `changed` of them a little (a version string), renaming each, as a
    /// patch release does, and changes index.html.
    func makeVersion(_ n: Int, changed: Int = 5) throws -> String {
        let source = temp.path + "/src-\(n)"
        try? FileManager.default.removeItem(atPath: source)
        try FileManager.default.createDirectory(atPath: source + "/assets", withIntermediateDirectories: true)
        var generator = SplitMix(seed: 11)
        var names: [String] = []
        for chunk in 0..<30 {
            let words = (0..<3000).map { _ in "w\(generator.next() % 5000)" }.joined(separator: " ")
            let body = "/* chunk \(chunk) release \(chunk < changed ? n : 1) */ " + words
            let hash = String(SHA256.hash(data: Array(body.utf8)).hexString.prefix(8))
            let name = "assets/Chunk\(chunk).\(hash).js"
            try Data(body.utf8).write(to: URL(fileURLWithPath: source + "/" + name))
            names.append(name)
        }
        let page = "<!doctype html><title>release \(n)</title>" + names.map { "<script src=\($0)></script>" }.joined()
        try Data(page.utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        return source
    }

    @discardableResult
    func publish(_ n: Int, changed: Int = 5, deltaFrom: Int = 3, rollout: Double? = nil) throws -> ManifestEntry {
        try PublishingFolder(originRoot).pack(source: try makeVersion(n, changed: changed), name: "app",
                                                          version: "\(n).0", options: .init(rolloutPercent: rollout, deltaFrom: deltaFrom))
    }

    func updater(_ origin: NginxOrigin, deviceID: String? = nil) -> Updater {
        Updater(store: store, manifestURL: origin.baseURL + "/manifest.json",
                transfer: TransferOptions(connectTimeout: 2, stallTimeout: 2, maxAttempts: 2, retryBaseDelay: 0.05),
                deviceID: deviceID)
    }

    /// Publishes version 1, starts nginx over the origin and installs it (by zip).
    func originWithVersion1Installed() throws -> NginxOrigin {
        try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        #expect(try updater(origin).run().succeeded)
        return origin
    }

    /// Request paths and body bytes nginx logged after `count` earlier lines.
    func requests(_ origin: NginxOrigin, after count: Int) -> [(path: String, bytes: Int)] {
        origin.settledAccessLog().dropFirst(count).map {
            let fields = $0.split(separator: " ")
            return (String(fields[0]), Int(fields[3]) ?? -1)
        }
    }

    func expectInstalledEqualsSource(_ version: Int) throws {
        let source = try makeVersion(version), installed = store.layout.versionDirectory("app", "\(version).0")
        let files = try FileManager.default.subpathsOfDirectory(atPath: source).filter { !FileSystem.isDirectory(source + "/" + $0) }
        #expect(try FileManager.default.subpathsOfDirectory(atPath: installed)
            .filter { !FileSystem.isDirectory(installed + "/" + $0) }.sorted() == files.sorted())
        for path in files {
            #expect(FileManager.default.contentsEqual(atPath: source + "/" + path, andPath: installed + "/" + path), "\(path)")
        }
        #expect(try store.verify("app").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty)
    }

    @Test func aDeviceOnThePreviousReleaseFetchesOneDeltaAndNothingElse() throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }

        let v2 = try publish(2)
        let delta = try #require(v2.deltas.first)
        #expect(v2.deltas.count == 1 && delta.from == "1.0")
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().packages.map(\.action) == [.upgraded])
        let fetched = requests(origin, after: before)
        #expect(fetched.map(\.path) == ["/manifest.json", "/" + delta.url], "\(fetched)")
        // Five rewritten chunks of ~20 KB and the page, each a line apart from its predecessor.
        #expect(delta.size < 2_000, "\(delta.size) bytes for five renamed chunks that differ in one line")
        #expect(fetched.last?.bytes == Int(delta.size))
        try expectInstalledEqualsSource(2)
        // Unchanged chunks are the inodes of 1.0.
        var a = stat(), b = stat()
        let kept = try #require(try FileManager.default.contentsOfDirectory(atPath: store.layout.versionDirectory("app", "1.0") + "/assets")
            .first { $0.hasPrefix("Chunk29.") })
        #expect(stat(store.layout.versionDirectory("app", "1.0") + "/assets/" + kept, &a) == 0)
        #expect(stat(store.layout.versionDirectory("app", "2.0") + "/assets/" + kept, &b) == 0)
        #expect(a.st_ino == b.st_ino)
    }

    @Test func aMissingDeltaFallsBackToObjectsAndAForeignOneIsNeverFetched() throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }
        let v2 = try publish(2)
        try FileManager.default.removeItem(atPath: originRoot + "/" + (v2.deltas.first?.url ?? ""))
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().succeeded)
        let fetched = requests(origin, after: before).map(\.path)
        #expect(fetched.count == 2 + 1 + 6, "manifest, the delta's 404, the index, six objects: \(fetched)")
        #expect(fetched.contains("/" + (v2.index?.url ?? "?")) && !fetched.contains("/" + v2.url))
        try expectInstalledEqualsSource(2)

        // Version 4 has a delta from 3 only: a device on 2 never asks for it.
        try publish(3, deltaFrom: 0)
        let v4 = try publish(4, deltaFrom: 1)
        #expect(v4.deltas.map(\.from) == ["3.0"])
        let start = origin.settledAccessLog().count
        #expect(try updater(origin).run().succeeded)
        #expect(!requests(origin, after: start).contains { $0.path.hasPrefix("/deltas/") })
        #expect(store.activeVersion(of: "app") == "4.0")
    }

    /// A hostile origin's deltas, each listed in the manifest with its true hash and
    /// size (as a compromised publisher would): each is refused with one line naming the
    /// package, and the update goes on by objects to the right tree.
    @Test(arguments: HostileDelta.allCases)
    func aHostileDeltaIsRefusedAndTheNextWayIsUsed(_ hostile: HostileDelta) throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }
        let v2 = try publish(2)
        let reference = try #require(v2.deltas.first)
        let path = originRoot + "/" + reference.url
        let bytes = try hostile.rewrite(try #require(try FileSystem.read(path)))
        try FileSystem.writeAtomically(bytes, to: path)
        if hostile != .notTheListedBytes {
            try BundleFixtures.editManifest(in: originRoot) { manifest in
                manifest.packages[0].deltas[0].sha256 = SHA256.hash(data: bytes).hexString
                manifest.packages[0].deltas[0].size = UInt64(bytes.count)
            }
        }
        let fallbacks = FallbackLog()
        let report = try updater(origin).run(progress: fallbacks.record)
        #expect(report.packages.map(\.action) == [.upgraded])
        let reasons = fallbacks.all
        #expect(reasons.count == 1, "\(reasons)")
        #expect(reasons.first.map { $0.hasPrefix("app 2.0: ") && !$0.contains("\n") } == true, "\(reasons)")
        #expect(reasons.first?.contains(hostile.reason) == true, "\(hostile): \(reasons)")
        try expectInstalledEqualsSource(2)
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/escaped"))
    }

    @Test func aRevokedRolloutGoesBackToAReleaseThatKeepsItsDeltas() throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }
        let v2 = try publish(2)
        try publish(3, rollout: 10)
        let entry = try PublishingFolder(originRoot).revoke(name: "app", version: "3.0")
        #expect(entry.version == "2.0" && entry.deltas == v2.deltas && entry.index == v2.index)
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().packages.map(\.action) == [.upgraded])
        #expect(requests(origin, after: before).map(\.path) == ["/manifest.json", "/" + (v2.deltas.first?.url ?? "?")])
        try expectInstalledEqualsSource(2)
    }

    /// A device outside a live rollout is given the rollout's previous release, and installs
    /// it by that release's own delta, not by its zip.
    @Test func aDeviceOutsideALiveRolloutTakesThePreviousReleasesDelta() throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }
        let v2 = try publish(2)
        let v3 = try publish(3, rollout: 10)
        let rollout = try #require(v3.rollout)
        #expect(rollout.previous?.version == "2.0" && rollout.previous?.deltas == v2.deltas)
        let outside = try #require((0..<200).map { "device-\($0)" }.first { !rollout.includes(deviceID: $0) })
        let before = origin.settledAccessLog().count
        #expect(try updater(origin, deviceID: outside).run().packages.map(\.action) == [.upgraded])
        #expect(store.activeVersion(of: "app") == "2.0")
        #expect(requests(origin, after: before).map(\.path) == ["/manifest.json", "/" + (v2.deltas.first?.url ?? "?")])
        try expectInstalledEqualsSource(2)
    }

    /// An installed base file that no longer matches its record (changed on disk behind the
    /// store's back) is never used as a delta base: the delta is refused and objects install
    /// the version, byte for byte.
    @Test func aBaseFileThatDiffersFromItsRecordIsNotUsed() throws {
        let origin = try originWithVersion1Installed()
        defer { origin.stop() }
        let v2 = try publish(2)
        let base = store.layout.versionDirectory("app", "1.0") + "/index.html"
        chmod(base, 0o644)
        try FileSystem.writeAtomically(Array("<!doctype html>tampered".utf8), to: base)
        let fallbacks = FallbackLog()
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run(progress: fallbacks.record).succeeded)
        #expect(fallbacks.all.count == 1 && fallbacks.all[0].contains("installed file \(base) differs from its record"),
                "\(fallbacks.all)")
        let fetched = requests(origin, after: before).map(\.path)
        #expect(fetched.contains("/" + (v2.deltas.first?.url ?? "?")) && fetched.contains("/" + (v2.index?.url ?? "?")),
                "the delta, refused, then the index and objects: \(fetched)")
        #expect(FileManager.default.contentsEqual(atPath: try makeVersion(2) + "/index.html",
                                                  andPath: store.layout.versionDirectory("app", "2.0") + "/index.html"))
    }

    @Test func aSignedManifestCoversTheDeltas() throws {
        let key = try SigningKey.generate(in: temp.path)
        let signer = ManifestSigner(keys: [key])
        _ = try PublishingFolder(originRoot).pack(source: try makeVersion(1), name: "app", version: "1.0",
                                                              signer: signer)
        let v2 = try PublishingFolder(originRoot).pack(source: try makeVersion(2), name: "app", version: "2.0",
                                                                   signer: signer)
        let opened = try TrustPolicy(trustedKeys: [key.publicKey]).open(
            try #require(try FileSystem.read(originRoot + "/manifest.json")), source: "manifest.json", now: Date())
        #expect(!v2.deltas.isEmpty)
        #expect(opened.manifest.packages.first?.deltas == v2.deltas, "the deltas are part of the signed payload")
    }

    @Test func theSameTreesGiveTheSameDeltaBytes() throws {
        var files: [[UInt8]] = []
        for out in ["a", "b"] {
            let publisher = PublishingFolder(temp.path + "/" + out)
            try publisher.pack(source: try makeVersion(1), name: "app", version: "1.0")
            let entry = try publisher.pack(source: try makeVersion(2), name: "app", version: "2.0")
            files.append(try #require(try FileSystem.read(temp.path + "/" + out + "/" + (entry.deltas.first?.url ?? ""))))
        }
        #expect(files[0] == files[1] && !files[0].isEmpty)
    }

    /// Base files past what a device holds in memory are refused before one is read.
    @Test func baseFilesPastTheMemoryBoundAreRefusedBeforeReading() throws {
        let huge = FileIndex.Entry(size: TreeDelta.maxBaseBytes / 2 + 1, sha256: String(repeating: "a", count: 64))
        let record = VersionRecord(entry: ManifestEntry(name: "app", version: "1.0", url: "app-1.0.zip",
                                                        sha256: String(repeating: "0", count: 64), size: 1),
                                   index: FileIndex(files: ["a.js": huge, "b.js": huge]))
        let header = TreeDelta.Header(base: TreeDigest.of(record.index), target: String(repeating: "b", count: 64),
                                      bases: ["a.js", "b.js"], removed: [], files: [])
        let error = #expect(throws: PkgError.self) {
            _ = try TreeDeltaApplication(delta: TreeDelta(header: header, data: []), base: record.index,
                                         limits: ExtractionLimits(), label: "app 2.0")
        }
        #expect(error?.message == "app 2.0: delta: its base files weigh \(2 * huge.size) bytes, more than the limit of "
                + "\(TreeDelta.maxBaseBytes)")
    }

    /// Paths are the base's byte for byte: Swift would find `é.js` (NFC) under `e\u{301}.js`
    /// (NFD), the kernel would not; and a base file counts once.
    @Test func pathsSpeltOtherwiseAndBasesListedTwiceAreRefused() throws {
        let entry = FileIndex.Entry(size: 3, sha256: String(repeating: "a", count: 64))
        let record = VersionRecord(entry: ManifestEntry(name: "app", version: "1.0", url: "app-1.0.zip",
                                                        sha256: String(repeating: "0", count: 64), size: 1),
                                   index: FileIndex(files: ["\u{e9}.js": entry, "b.js": entry]))
        let nfd = "e\u{301}.js"
        let cases: [(TreeDelta.Header, String)] = [
            (.init(base: "", target: "", bases: [], removed: [nfd], files: []), "names a file of the base in another spelling"),
            (.init(base: "", target: "", bases: [], removed: [], files: [.init(path: nfd, size: 1, mode: 0o644, from: nil)]),
             "names a file of the base in another spelling"),
            (.init(base: "", target: "", bases: [nfd], removed: [], files: []), "names a file of the base in another spelling"),
            (.init(base: "", target: "", bases: ["b.js", "b.js"], removed: [], files: []), "a base listed twice"),
        ]
        for (header, reason) in cases {
            let error = #expect(throws: PkgError.self) {
                _ = try TreeDeltaApplication(delta: TreeDelta(header: header, data: []), base: record.index,
                                             limits: ExtractionLimits(), label: "app 2.0")
            }
            #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
        }
    }

    @Test(arguments: [
        ("static/js/ArrowVegaLiteChart.D_YO7sq8.js", "static/js/ArrowVegaLiteChart.C7VsfKqo.js", true),
        ("static/js/Balloons.BgIvDoIS.js", "static/js/Balloons.B5etAoFf.js", true),
        ("static/js/DataFrame.PZArLJF-.js", "static/js/DataFrame.Cx_9aZ1q.js", true),
        ("static/js/9330.d29313d4.chunk.js", "static/js/9330.7a1b2c3d.chunk.js", true),
        ("assets/index-BDoW_Vkf.js", "assets/index-Cq3Zr7xT.js", true),
        ("main.3f2a9c1b7d.css", "main.0e1d2c3b4a.css", true),
        ("static/js/ArrowVegaLiteChart.D_YO7sq8.js", "static/js/AudioInput.D_YO7sq8.js", false),
        ("jquery-3.7.1.min.js", "jquery-3.7.2.min.js", false),
        ("index.html", "index.htm", false),
        ("static/js/9330.d29313d4.chunk.js", "static/js/9331.d29313d4.chunk.js", false),
    ])
    func predecessorNamesIgnoreOnlyTheContentHash(_ old: String, _ new: String, _ same: Bool) {
        #expect((PredecessorName.key(of: old) == PredecessorName.key(of: new)) == same,
                "\(PredecessorName.key(of: old)) vs \(PredecessorName.key(of: new))")
    }
}
