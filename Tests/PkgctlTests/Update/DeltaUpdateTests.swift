import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Per-file delta updates against a real nginx, whose access log shows what
/// was fetched: changed files only, unchanged ones hard-linked, hostile or
/// corrupt indexes and objects refused, an unfinished install resumed.
@Suite struct DeltaUpdateTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
    }

    /// A bundle of 24 incompressible 4 KB files; version `n` changes file 0 (and adds `extra` files).
    func makeVersion(_ n: Int, changed: Int = 1) throws -> String {
        let source = temp.path + "/src-\(n)"
        try BundleFixtures.makeTree(at: source, files: 24, size: 4096, seed: 7)
        for i in 0..<changed where n > 1 {
            let path = try #require(try FileManager.default.subpathsOfDirectory(atPath: source)
                .filter { $0.hasSuffix("/f\(i).bin") }.first)
            let tag = Array("version \(n) file \(i)".utf8)
            try Data(tag + (tag.count..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: source + "/" + path))
        }
        return source
    }

    /// Publishes version `n`; without tree deltas unless `deltaFrom` says, as these tests are of the per-file path.
    func publish(_ n: Int, changed: Int = 1, deltaFrom: Int = 0) throws -> ManifestEntry {
        try PublishingFolder(originRoot).pack(source: try makeVersion(n, changed: changed), name: "app",
                                                          version: "\(n).0", options: .init(deltaFrom: deltaFrom))
    }

    func updater(_ origin: NginxOrigin) -> Updater {
        Updater(store: store, manifestURL: origin.baseURL + "/manifest.json",
                transfer: TransferOptions(connectTimeout: 2, stallTimeout: 2, maxAttempts: 2, retryBaseDelay: 0.05))
    }

    /// Request paths nginx logged after `count` earlier lines.
    func requests(_ origin: NginxOrigin, after count: Int) -> [String] {
        origin.settledAccessLog().dropFirst(count).map { String($0.split(separator: " ")[0]) }
    }

    @Test func onlyChangedFilesAreFetchedAndUnchangedOnesShareTheirInode() throws {
        let v1 = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let first = requests(origin, after: 0)
        #expect(first == ["/manifest.json", "/" + v1.url], "a first install takes the zip")

        let v2 = try publish(2)
        let before = origin.settledAccessLog().count
        let report = try updater(origin).run()
        #expect(report.packages.map(\.action) == [.upgraded])
        let fetched = requests(origin, after: before)
        #expect(fetched.count == 3, "\(fetched)")
        #expect(fetched.first == "/manifest.json")
        #expect(fetched.contains("/" + (v2.index?.url ?? "?")))
        #expect(fetched.filter { $0.hasPrefix("/objects/") }.count == 1, "one changed file, one object")
        #expect(!fetched.contains("/" + v2.url), "no zip")

        // Every file equals the source; the unchanged ones are the very inodes of 1.0.
        let source = try makeVersion(2)
        let v1Dir = store.layout.versionDirectory("app", "1.0"), v2Dir = store.layout.versionDirectory("app", "2.0")
        var shared = 0
        for path in try FileManager.default.subpathsOfDirectory(atPath: source) where !FileSystem.isDirectory(source + "/" + path) {
            #expect(FileManager.default.contentsEqual(atPath: source + "/" + path, andPath: v2Dir + "/" + path), "\(path)")
            var a = stat(), b = stat()
            if stat(v1Dir + "/" + path, &a) == 0, stat(v2Dir + "/" + path, &b) == 0, a.st_ino == b.st_ino { shared += 1 }
        }
        #expect(shared == 23)
        #expect(try store.verify("app").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.objects).isEmpty, "objects go once the version is installed")
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty)
    }

    @Test func deltasWorkOverHTTPSWithTheGeneratedCA() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, tls: true, accessLog: true)
        defer { origin.stop() }
        var updater = updater(origin)
        updater.transfer.caFile = origin.caFile
        #expect(try updater.run().succeeded)
        _ = try publish(2, changed: 6)
        let before = origin.settledAccessLog().count
        #expect(try updater.run().packages.map(\.action) == [.upgraded])
        _ = requests(origin, after: before)
        let objectLines = origin.settledAccessLog().dropFirst(before).filter { $0.hasPrefix("/objects/") }
        #expect(objectLines.count == 6)
        let connections = Set(objectLines.map { $0.split(separator: " ").last.map(String.init) ?? "" })
        #expect(connections.count == 1, "six objects multiplexed on one HTTP/2 connection: \(connections)")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    @Test func theZipIsUsedWhenTheDeltaWouldNotPay() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publish(2, changed: 24)
        let before = origin.settledAccessLog().count
        let report = try updater(origin).run()
        #expect(report.succeeded)
        let fetched = requests(origin, after: before)
        #expect(fetched.contains("/" + v2.url), "\(fetched)")
        #expect(!fetched.contains { $0.hasPrefix("/objects/") })
        #expect(report.packages.first?.zipFallback == .tooLarge, "reported why: \(report.packages)")
    }

    /// Text compresses about tenfold: six changed 40 KB files weigh 240 KB as objects but a
    /// fraction of that gzipped, less than the 400 KB-as-text zip. The rule weighs them as they
    /// travel (the index's compressedSize), so the objects are fetched, and nginx's log shows
    /// them sent compressed.
    @Test func theDeltaPaysByBytesOnTheWireNotUncompressedSizes() throws {
        func version(_ n: Int) throws -> String {
            let source = temp.path + "/text-\(n)"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            var generator = SplitMix(seed: 3)
            for file in 0..<10 {
                let words = (0..<6000).map { _ in "w\(generator.next() % 300)" }.joined(separator: " ")
                let text = "file \(file) of release \(file < 6 ? n : 1)\n" + words
                try Data(text.utf8).write(to: URL(fileURLWithPath: source + "/f\(file).txt"))
            }
            return source
        }
        let publisher = PublishingFolder(originRoot)
        try publisher.pack(source: try version(1), name: "app", version: "1.0", options: .init(deltaFrom: 0))
        let origin = try NginxOrigin(root: originRoot, accessLog: true, gzip: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publisher.pack(source: try version(2), name: "app", version: "2.0", options: .init(deltaFrom: 0))
        let index = try PublishedFileIndex.parse(try FileSystem.read(originRoot + "/" + (v2.index?.url ?? "")) ?? [],
                                                 label: "x", limits: ExtractionLimits())
        let changed = index.files.filter { $0.path < "f6" }
        #expect(changed.reduce(0) { $0 + $1.size } > v2.size, "uncompressed, the objects outweigh the zip")
        #expect(changed.allSatisfy { ($0.compressedSize ?? $0.size) * 3 < $0.size })
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().succeeded)
        let lines = origin.settledAccessLog().dropFirst(before).map { $0.split(separator: " ") }
        let objects = lines.filter { $0[0].hasPrefix("/objects/") }
        #expect(objects.count == 6 && !lines.contains { $0[0] == "/" + v2.url }, "\(lines)")
        let sent = objects.reduce(0) { $0 + (Int($1[3]) ?? 0) }
        #expect(sent < Int(v2.size), "objects sent gzipped: \(sent) bytes against the zip's \(v2.size)")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    @Test func aMissingOrCorruptObjectFallsBackToTheZip() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publish(2)
        let object = try changedObject(v2)
        let saved = try #require(try FileSystem.read(object))

        try FileManager.default.removeItem(atPath: object)
        let before = origin.settledAccessLog().count
        let missing = try updater(origin).run()
        #expect(missing.succeeded)
        #expect(requests(origin, after: before).contains("/" + v2.url), "404 for an object: the zip instead")
        #expect(missing.packages.first?.zipFallback == .transferError, "\(missing.packages)")
        let outcome = try #require(missing.packages.first)
        let sent = try #require(OutcomeReport(outcome, wasReverted: false, deviceID: "d", client: "0"))
        #expect(OutcomeReport(query: Substring(sent.query))?.zipFallback == .transferError, "\(sent.query)")
        #expect(store.activeVersion(of: "app") == "2.0")

        let v3 = try publish(3)
        let v3object = try changedObject(v3)
        try FileSystem.writeAtomically(saved, to: v3object)  // other bytes under this name
        let events = FallbackLog()
        let beforeCorrupt = origin.settledAccessLog().count
        let report = try updater(origin).run(progress: events.record)
        #expect(report.succeeded, "\(report.packages.first?.error ?? "")")
        #expect(store.activeVersion(of: "app") == "3.0")
        let fetched = requests(origin, after: beforeCorrupt)
        #expect(fetched.contains("/" + PublishedFileIndex.objectPath((v3object as NSString).lastPathComponent)), "\(fetched)")
        #expect(fetched.contains("/" + v3.url), "the object's digest failed: the zip instead \(fetched)")
        #expect(events.all.count == 1 && events.all[0].contains("SHA-256")
                && events.all[0].hasSuffix("; installing from the zip"), "\(events.all)")
        #expect(report.packages.first?.zipFallback == .hashMismatch, "\(report.packages)")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.objects).isEmpty, "no wrong bytes kept")

        // Both the object and the zip wrong: the package fails, the active version serves on.
        _ = try publish(4)
        let v4 = try #require(try PublishedManifest.read(originRoot + "/manifest.json")).manifest.packages[0]
        try FileSystem.writeAtomically(saved, to: try changedObject(v4))
        var zip = try #require(try FileSystem.read(originRoot + "/" + v4.url))
        zip[zip.count / 2] ^= 0xff
        try FileSystem.writeAtomically(zip, to: originRoot + "/" + v4.url)
        let failed = try updater(origin).run()
        #expect(failed.packages.first?.action == .failed)
        #expect(store.activeVersion(of: "app") == "3.0")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    @Test func anUnfinishedInstallResumesWithoutFetchingObjectsAgain() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publish(2, changed: 4)
        let index = try PublishedFileIndex.parse(try FileSystem.read(originRoot + "/" + (v2.index?.url ?? "")) ?? [],
                                                 label: "x", limits: ExtractionLimits())
        let changed = Set(index.files.map(\.sha256)).subtracting(
            try store.record(of: "app", version: "1.0")?.index.files.values.map(\.sha256) ?? [])
        #expect(changed.count == 4)
        // The last object (in the order they are fetched) is corrupt on the origin, and the zip
        // it would fall back to is gone: the run fails there.
        let last = try #require(changed.sorted().last)
        let lastPath = originRoot + "/" + PublishedFileIndex.objectPath(last)
        let good = try #require(try FileSystem.read(lastPath))
        try FileSystem.writeAtomically(Array(repeating: 0, count: good.count), to: lastPath)
        try FileManager.default.removeItem(atPath: originRoot + "/" + v2.url)
        #expect(try updater(origin).run().packages.first?.action == .failed)
        #expect(try FileSystem.contents(of: store.layout.objects).count == 3, "verified objects wait for the next run")

        try FileSystem.writeAtomically(good, to: lastPath)
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().succeeded)
        let objects = requests(origin, after: before).filter { $0.hasPrefix("/objects/") }
        #expect(objects == ["/" + PublishedFileIndex.objectPath(last)], "only the object not yet verified")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    @Test func aPartlyReceivedObjectContinuesWithARange() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publish(2, changed: 2)
        let object = try changedObject(v2)
        let sha = (object as NSString).lastPathComponent
        let bytes = try #require(try FileSystem.read(object))
        // What a killed run had received of it.
        try FileSystem.makeDirectories(store.layout.objects)
        try FileSystem.writeAtomically(Array(bytes.prefix(1000)), to: store.layout.objects + "/" + FileSystem.temporaryPrefix + sha)
        let before = origin.settledAccessLog().count
        #expect(try updater(origin).run().succeeded)
        _ = requests(origin, after: before)
        let line = try #require(origin.settledAccessLog().dropFirst(before).first { $0.hasPrefix("/" + PublishedFileIndex.objectPath(sha)) })
        #expect(line.contains(" 206 \"bytes=1000-\" \(bytes.count - 1000) "), "\(line)")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.objects).isEmpty)
    }

    @Test func anIndexWhoseBytesDoNotMatchItsHashIsRefusedForTheZip() throws {
        _ = try publish(1)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        #expect(try updater(origin).run().succeeded)
        let v2 = try publish(2)
        let reference = try #require(v2.index)
        let indexPath = originRoot + "/" + reference.url
        var bytes = try #require(try FileSystem.read(indexPath))
        bytes[bytes.count / 2] ^= 0x01
        try FileSystem.writeAtomically(bytes, to: indexPath)
        let before = origin.settledAccessLog().count
        let events = FallbackLog()
        let report = try updater(origin).run(progress: events.record)
        #expect(report.succeeded, "\(report.packages.first?.error ?? "")")
        // Refused for its digest, naming the index and the digest the manifest signed.
        let reason = events.all.first ?? ""
        #expect(reason.contains(reference.url) && reason.contains(reference.sha256), "\(reason)")
        let fetched = requests(origin, after: before)
        #expect(!fetched.contains { $0.hasPrefix("/objects/") }, "nothing it lists was fetched: \(fetched)")
        #expect(fetched.contains("/" + v2.url), "the zip instead: \(fetched)")
        #expect(store.activeVersion(of: "app") == "2.0")
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    @Test(arguments: [
        (#"{"files":[{"path":"../x","sha256":"\#(hex)","size":1,"mode":420}]}"#, "'../x': path leaves the bundle"),
        (#"{"files":[{"path":"/etc/x","sha256":"\#(hex)","size":1,"mode":420}]}"#, "'/etc/x': absolute path"),
        (#"{"files":[{"path":"a\\b","sha256":"\#(hex)","size":1,"mode":420}]}"#, "backslash"),
        (#"{"files":[{"path":"a","sha256":"\#(hex)","size":1,"mode":420},{"path":"a","sha256":"\#(hex)","size":1,"mode":420}]}"#,
         "'a': duplicate path"),
        (#"{"files":[{"path":"A.html","sha256":"\#(hex)","size":1,"mode":420},{"path":"a.html","sha256":"\#(hex)","size":1,"mode":420}]}"#,
         "'a.html': differs from another path only in case"),
        (#"{"files":[{"path":"a","sha256":"\#(hex)","size":1,"mode":420},{"path":"a/b","sha256":"\#(hex)","size":1,"mode":420}]}"#,
         "'a': is both a file and a directory"),
        (#"{"files":[{"path":"a","sha256":"XYZ","size":1,"mode":420}]}"#, "sha256 must be 64 lower-case hex digits"),
        (#"{"files":[{"path":"a","sha256":"\#(hex)","size":1,"mode":2541}]}"#, "mode must be 644 or 755"),
        (#"{"files":[{"path":"a","sha256":"\#(hex)","size":99999999999,"mode":420}]}"#, "more than the limit"),
        (#"{"files":"nope"}"#, "files: expected"),
    ])
    func hostileIndexesAreRefused(json: String, reason: String) {
        let error = #expect(throws: PkgError.self) {
            try PublishedFileIndex.parse(Array(json.utf8), label: "app 2.0", limits: ExtractionLimits())
        }
        #expect(error?.message.hasPrefix("app 2.0: file index: ") == true)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    /// The object of the one file that differs between version 1 and `entry`.
    private func changedObject(_ entry: ManifestEntry) throws -> String {
        let index = try PublishedFileIndex.parse(try FileSystem.read(originRoot + "/" + (entry.index?.url ?? "")) ?? [],
                                                 label: "x", limits: ExtractionLimits())
        let old = Set(try store.record(of: "app", version: store.activeVersion(of: "app") ?? "")?.index.files.values.map(\.sha256) ?? [])
        let sha = try #require(index.files.map(\.sha256).first { !old.contains($0) })
        return originRoot + "/" + PublishedFileIndex.objectPath(sha)
    }
}

private let hex = String(repeating: "a", count: 64)

