import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `Updater` end to end: a real nginx origin, real libcurl downloads, real libzip extraction.
@Suite struct UpdaterTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
    }

    func updater(_ manifestURL: String, caFile: String? = nil, keep: Int = 2) -> Updater {
        Updater(store: store, manifestURL: manifestURL,
                transfer: TransferOptions(caFile: caFile, connectTimeout: 2, stallTimeout: 2,
                                          maxAttempts: 3, retryBaseDelay: 0.05),
                keep: keep)
    }

    @Test func installsOverHTTPThenAnswers304() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        try backdate(originRoot + "/manifest.json")
        let origin = try NginxOrigin(root: originRoot)
        defer { origin.stop() }

        let first = try updater(origin.baseURL + "/manifest.json").run()
        #expect(first.manifest == .fetched)
        #expect(first.packages.map(\.action) == [.installed])
        try expectActive("1.0.0")

        let second = try updater(origin.baseURL + "/manifest.json").run()
        #expect(second.manifest == .notModified)
        #expect(second.packages.isEmpty)
    }

    @Test func installsOverHTTPSWithGeneratedCA() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        let origin = try NginxOrigin(root: originRoot, tls: true)
        defer { origin.stop() }

        let report = try updater(origin.baseURL + "/manifest.json", caFile: origin.caFile).run()
        #expect(report.succeeded)
        try expectActive("1.0.0")
    }

    @Test func upgradesAndReportsDowngrades() throws {
        let manifest = "file://" + originRoot + "/manifest.json"
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        #expect(try updater(manifest).run().packages.map(\.action) == [.installed])
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot, allowDowngrade: true)
        let report = try updater(manifest).run()
        #expect(report.packages.first?.action == .downgraded)
        #expect(report.packages.first?.from == "1.1.0")
        try expectActive("1.0.0")
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        #expect(try updater(manifest).run().packages.first?.action == .upgraded)
        try expectActive("1.1.0")
        #expect(try updater(manifest).run().packages.first?.action == .unchanged)
    }

    @Test func wrongHashFailsAndKeepsTheActiveVersion() throws {
        try installDemo100()
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].sha256 = String(repeating: "0", count: 64) }

        let report = try updater("file://" + originRoot + "/manifest.json").run()
        let failure = try #require(report.packages.first)
        #expect(failure.action == .failed)
        #expect(failure.error?.hasPrefix("demo 1.1.0: ") == true)
        #expect(failure.error?.contains("sha256") == true || failure.error?.contains("SHA-256") == true)
        try expectActive("1.0.0")
        try expectNoDebris()
    }

    @Test func truncatedDownloadFailsCleanly() throws {
        try installDemo100()
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].size += 1000 }
        let origin = try NginxOrigin(root: originRoot)
        defer { origin.stop() }

        let report = try updater(origin.baseURL + "/manifest.json").run()
        #expect(report.packages.first?.action == .failed)
        #expect(report.packages.first?.error?.contains("size") == true)
        try expectActive("1.0.0")
        try expectNoDebris()
    }

    @Test func serverErrorsAndUnreachableOriginsFailCleanly() throws {
        try installDemo100()
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        let origin = try NginxOrigin(root: originRoot)
        defer { origin.stop() }

        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = origin.baseURL + "/always-500/demo-1.1.0.zip" }
        let serverError = try updater(origin.baseURL + "/manifest.json").run()
        #expect(serverError.packages.first?.action == .failed)
        #expect(serverError.packages.first?.error?.contains("500") == true)

        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = "http://127.0.0.1:1/demo-1.1.0.zip" }
        let unreachable = try updater(origin.baseURL + "/manifest.json").run()
        #expect(unreachable.packages.first?.action == .failed)
        #expect(unreachable.packages.first?.error?.contains("127.0.0.1:1") == true)
        try expectActive("1.0.0")
        try expectNoDebris()
    }

    @Test func retriesServerErrorsAndResumesCutTransfers() throws {
        let first = try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)[0]
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = "fail-once/" + first.url }
        #expect(try updater(origin.baseURL + "/manifest.json").run().succeeded)
        try expectActive("1.0.0")
        // The 500 was retried: two requests for the zip, the first failed, the second whole.
        let zips100 = origin.settledAccessLog().filter { $0.hasPrefix("/fail-once/\(first.url) ") }
        #expect(zips100.map { $0.split(separator: " ")[1] } == ["500", "200"], "\(origin.accessLog())")

        let second = try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)[0]
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = "cut-once/" + second.url }
        #expect(try updater(origin.baseURL + "/manifest.json").run().succeeded)
        try expectActive("1.1.0")
        // The cut transfer resumed: the second request asked for the rest with a Range and got 206.
        let zips110 = origin.settledAccessLog().filter { $0.hasPrefix("/cut-once/\(second.url) ") }
        #expect(zips110.count == 2, "\(origin.accessLog())")
        #expect(zips110.last?.split(separator: " ")[1] == "206", "\(zips110)")
        #expect(zips110.last?.contains("\"bytes=") == true, "\(zips110)")
        #expect(origin.truncatedRequestCount == 1)
    }

    @Test func unsafeBundleIsRefusedNamingPackageAndEntry() throws {
        try installDemo100()
        let evil = temp.path + "/evil"
        try FileManager.default.createDirectory(atPath: evil, withIntermediateDirectories: true)
        let entry = try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "2.0.0", options: .init(deltaFrom: 0))
        try BundleFixtures.renameEntry(in: originRoot + "/" + entry.url, from: "index.html", to: "../../escaped.html")
        try BundleFixtures.editManifest(in: originRoot) { manifest in
            let digest = try! FileHasher.hash(file: originRoot + "/" + entry.url)
            manifest.packages[0].sha256 = digest.sha256
            manifest.packages[0].size = digest.size
        }

        let report = try updater("file://" + originRoot + "/manifest.json").run()
        let error = try #require(report.packages.first?.error)
        #expect(error.hasPrefix("demo 2.0.0: entry '../../escaped.html'"))
        #expect(!FileManager.default.fileExists(atPath: temp.path + "/escaped.html"))
        #expect(!FileManager.default.fileExists(atPath: store.layout.packages + "/escaped.html"))
        try expectActive("1.0.0")
        try expectNoDebris()
    }

    @Test func onePackageFailingDoesNotStopOthers() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "other", version: "3.0")
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].sha256 = String(repeating: "1", count: 64) }

        let report = try updater("file://" + originRoot + "/manifest.json").run()
        #expect(report.packages.map(\.action) == [.failed, .installed])
        #expect(!report.succeeded)
        #expect(store.activeVersion(of: "other") == "3.0")
        #expect(store.activeVersion(of: "demo") == nil)
    }

    @Test func packagesDroppedFromTheManifestStayInstalled() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "other", version: "3.0")
        #expect(try updater("file://" + originRoot + "/manifest.json").run().succeeded)
        try BundleFixtures.editManifest(in: originRoot) { $0.packages.removeAll { $0.name == "demo" } }

        let report = try updater("file://" + originRoot + "/manifest.json").run()
        #expect(report.succeeded)
        #expect(report.packages.map(\.name) == ["other"])  // "demo" is not touched, not even reported
        try expectActive("1.0.0")
        #expect(try store.activePackages().map(\.name) == ["demo", "other"])
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs permission to mount a tmpfs"))
    func fullDiskFailsCleanly() throws {
        let mount = temp.path + "/small"
        try #require(TmpfsMount.make(at: mount, size: "3m"))
        defer { TmpfsMount.remove(at: mount) }
        let smallStore = PackageStore(root: mount + "/store")
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        let manifest = "file://" + originRoot + "/manifest.json"
        #expect(try Updater(store: smallStore, manifestURL: manifest).run().succeeded)

        let big = temp.path + "/big"
        try BundleFixtures.makeTree(at: big, files: 40, size: 100_000)
        try PublishingFolder(originRoot).pack(source: big, name: "demo", version: "9.0")
        let report = try Updater(store: smallStore, manifestURL: manifest).run()
        let error = try #require(report.packages.first?.error)
        #expect(error.contains("only") && error.contains("free"), "\(error)")
        #expect(smallStore.activeVersion(of: "demo") == "1.0.0")
        #expect(try smallStore.verify("demo").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: smallStore.layout.staging).isEmpty)
    }

    @Test(.enabled(if: TmpfsMount.isAvailable, "needs permission to mount a tmpfs"))
    func diskFillingUpDuringExtractionFailsCleanly() throws {
        let mount = temp.path + "/small"
        try #require(TmpfsMount.make(at: mount, size: "2m"))
        defer { TmpfsMount.remove(at: mount) }
        let smallStore = PackageStore(root: mount + "/store")
        let big = temp.path + "/big"
        try BundleFixtures.makeTree(at: big, files: 30, size: 100_000)
        let entry = try PublishingFolder(originRoot).pack(source: big, name: "demo", version: "9.0")

        let error = #expect(throws: PkgError.self) {
            try smallStore.install(entry, archive: originRoot + "/" + entry.url, limits: ExtractionLimits(),
                                   workers: 2, checkSpace: false)
        }
        #expect(error?.code == .insufficientSpace)
        #expect(error?.message.contains("No space left") == true)
        #expect(try FileSystem.contents(of: smallStore.layout.staging).isEmpty)
        #expect(!FileSystem.exists(smallStore.layout.versionDirectory("demo", "9.0")))
        #expect(!FileSystem.exists(smallStore.layout.recordFile("demo", "9.0")))
    }

    // MARK: - Helpers

    private func installDemo100() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater("file://" + originRoot + "/manifest.json").run().succeeded)
        try expectActive("1.0.0")
    }

    /// `current` names `version`, whose files equal the sample source and its index.
    private func expectActive(_ version: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(store.activeVersion(of: "demo") == version, sourceLocation: sourceLocation)
        let directory = store.layout.versionDirectory("demo", version)
        let source = BundleFixtures.demoSource(version)
        let files = try FileManager.default.subpathsOfDirectory(atPath: source).filter {
            !FileSystem.isDirectory(source + "/" + $0)
        }
        for file in files {
            #expect(FileManager.default.contentsEqual(atPath: source + "/" + file, andPath: directory + "/" + file),
                    "\(file)", sourceLocation: sourceLocation)
        }
        #expect(try store.verify("demo").allSatisfy(\.isIntact), sourceLocation: sourceLocation)
    }

    private func expectNoDebris(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty, sourceLocation: sourceLocation)
        let versions = try FileSystem.contents(of: store.layout.packageDirectory("demo")).filter { $0 != "current" }
        let recorded = try store.retainedVersions(of: "demo").map(\.entry.version)
        #expect(Set(versions) == Set(recorded), sourceLocation: sourceLocation)
    }
}

/// A small tmpfs, to fill a disk for real; tests needing it are skipped where mounting is not allowed.
enum TmpfsMount {
    static let isAvailable: Bool = {
        let probe = FileManager.default.temporaryDirectory.path + "/pkgctl-tmpfs-probe-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard make(at: probe, size: "64k") else { return false }
        remove(at: probe)
        return true
    }()

    static func make(at path: String, size: String) -> Bool {
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return run(["/bin/mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]) == 0
    }

    static func remove(at path: String) {
        _ = run(["/bin/umount", path])
    }

    private static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardError = FileHandle.nullDevice
        guard (try? ProcessLaunch.run(process)) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
