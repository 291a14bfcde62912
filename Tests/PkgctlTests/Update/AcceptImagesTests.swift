import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `update --accept-images`: a device whose engine decodes WebP (or AVIF) downloads and keeps
/// only the variant of each image that has one, against a real nginx whose access log shows
/// what was fetched; a device that does not say keeps every file.
@Suite struct AcceptImagesTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let source: String
    /// Incompressible bytes (the origin's gzip cannot blur the sizes): the original is the largest.
    static func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }
    static let files: [String: [UInt8]] = [
        "index.html": Array("<!doctype html><img src=img/a.png><img src=img/b.jpg><img src=img/c.png>".utf8),
        "img/a.png": noise(60_000, seed: 1), "img/a.png.webp": noise(20_000, seed: 2), "img/a.png.avif": noise(15_000, seed: 3),
        "img/b.jpg": noise(40_000, seed: 4), "img/b.jpg.webp": noise(25_000, seed: 5),
        "img/c.png": noise(30_000, seed: 6),  // no variant: kept as it is
    ]

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        source = temp.path + "/site"
        for (path, bytes) in Self.files {
            try FileManager.default.createDirectory(atPath: PathName.parent(source + "/" + path), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: source + "/" + path))
        }
        _ = try PublishingFolder(originRoot).pack(source: source, name: "app", version: "1.0", options: .init(routes: ["www.example.com/app"], deltaFrom: 0))
    }

    func update(_ origin: NginxOrigin, accepting: Set<ImageVariant>, store: PackageStore) throws -> UpdateReport {
        var updater = Updater(store: store, manifestURL: origin.baseURL + "/manifest.json",
                              transfer: TransferOptions(connectTimeout: 2, stallTimeout: 2, maxAttempts: 2))
        updater.acceptImages = accepting
        return try updater.run()
    }

    func installedFiles(_ store: PackageStore) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: store.layout.versionDirectory("app", "1.0"))
            .filter { !FileSystem.isDirectory(store.layout.versionDirectory("app", "1.0") + "/" + $0) }.sorted()
    }

    @Test func aWebPDeviceFetchesAndKeepsOnlyTheWebPOfEachImageThatHasOne() throws {
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        let store = PackageStore(root: temp.path + "/webp-device")
        #expect(try update(origin, accepting: [.webp], store: store).succeeded)
        #expect(try installedFiles(store) == ["img/a.png.webp", "img/b.jpg.webp", "img/c.png", "index.html"])
        let log = origin.settledAccessLog()
        #expect(!log.contains { $0.hasPrefix("/zips/") }, "no zip: \(log)")
        let sent = log.filter { $0.hasPrefix("/objects/") }.compactMap { Int($0.split(separator: " ")[3]) }.reduce(0, +)
        let wanted = [20_000, 25_000, 30_000, Self.files["index.html"]!.count]
        #expect(sent == wanted.reduce(0, +), "only the installed files' bytes crossed: \(log)")

        // verify knows the tree holds variants, and finds it intact.
        let report = try #require(try store.verify("app").first)
        #expect(report.isIntact)
        #expect(report.imageVariants == ["webp": 2])
        // The resolver answers the original URLs with the WebPs.
        let resolver = try Resolver(store: store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        let answer = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://www.example.com/app/img/a.png", headers: [("Accept", "image/webp,*/*")])))
        #expect(answer.response.header("Content-Type") == "image/webp")
        #expect(answer.response.header("Content-Length") == "20000")
    }

    @Test func anAVIFAndWebPDeviceTakesTheAVIFWhereThereIsOne() throws {
        let origin = try NginxOrigin(root: originRoot)
        defer { origin.stop() }
        let store = PackageStore(root: temp.path + "/avif-device")
        #expect(try update(origin, accepting: [.avif, .webp], store: store).succeeded)
        #expect(try installedFiles(store) == ["img/a.png.avif", "img/b.jpg.webp", "img/c.png", "index.html"])
        #expect(try store.verify("app").first?.imageVariants == ["avif": 1, "webp": 1])
    }

    @Test func aDeviceThatDoesNotSayInstallsEveryFileFromTheZip() throws {
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        defer { origin.stop() }
        let store = PackageStore(root: temp.path + "/plain-device")
        #expect(try update(origin, accepting: [], store: store).succeeded)
        #expect(try installedFiles(store) == Self.files.keys.sorted())
        #expect(origin.settledAccessLog().contains { $0.hasPrefix("/zips/app-1.0.") && $0.contains(".zip 200") })
        #expect(try store.verify("app").first?.imageVariants == [:])
    }

    @Test func selectionDropsVariantsTheEngineCannotDecodeAndKeepsALoneVariant() {
        func file(_ path: String) -> PublishedFileIndex.File {
            PublishedFileIndex.File(path: path, sha256: String(repeating: "0", count: 64), size: 1, mode: 0o644)
        }
        let files = ["a.png", "a.png.avif", "b.jpeg", "b.jpeg.webp", "c.svg", "c.svg.webp", "d.png.webp", "e.webp"].map(file)
        let webpOnly = ImageVariantSelection(accepted: [.webp]).select(files).map(\.path)
        #expect(webpOnly == ["a.png", "b.jpeg.webp", "c.svg", "c.svg.webp", "d.png.webp", "e.webp"])
        #expect(ImageVariantSelection(accepted: []).select(files) == files)
    }
}
