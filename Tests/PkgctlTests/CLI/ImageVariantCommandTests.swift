import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pack --image-variants` and `update --accept-images` (flag and config key) from the command
/// line, on photo-like pictures ImageMagick draws, and `verify` naming what the tree holds.
@Suite struct ImageVariantCommandTests {
    let temp: TemporaryDirectory
    let origin: String

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        let site = temp.path + "/site"
        try FileManager.default.createDirectory(atPath: site + "/img", withIntermediateDirectories: true)
        for (name, seed) in [("a.png", "3"), ("b.png", "4")] {
            _ = try runCommand("/usr/bin/convert", ["-size", "400x300", "-seed", seed, "plasma:fractal", "-blur", "0x3",
                                                    "-depth", "8", site + "/img/" + name])
        }
        try Data("<!doctype html><img src=img/a.png><img src=img/b.png>".utf8)
            .write(to: URL(fileURLWithPath: site + "/index.html"))
        let packed = try PkgctlProcess.run(["pack", site, "--name", "app", "--version", "1.0", "--out", origin,
                                            "--route", "www.example.com/app", "--image-variants", "webp"])
        #expect(packed.status == 0, "\(packed.stderr)")
        #expect(packed.stdout.contains("image variants: webp 2 files"), "\(packed.stdout)")
    }

    func installed(_ store: String) throws -> [String] {
        let directory = store + "/packages/app/1.0"
        return try FileManager.default.subpathsOfDirectory(atPath: directory)
            .filter { !FileSystem.isDirectory(directory + "/" + $0) }.sorted()
    }

    @Test func aWebPDeviceInstallsTheVariantsAndVerifySaysSo() throws {
        let store = temp.path + "/webp"
        let updated = try PkgctlProcess.run(["update", "--root", store, "--manifest", "file://" + origin + "/manifest.json",
                                             "--accept-images", "webp", "--no-report"])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try installed(store) == ["img/a.png.webp", "img/b.png.webp", "index.html"])
        let verified = try PkgctlProcess.run(["verify", "--root", store])
        #expect(verified.status == 0)
        #expect(verified.stdout == "app 1.0: ok (holds 2 images as WEBP)\n", "\(verified.stdout)")
    }

    @Test func theConfigKeyDoesWhatTheFlagDoesAndADeviceThatDoesNotSayGetsEveryFile() throws {
        let config = temp.path + "/config.json"
        try Data(#"{"update": {"accept-images": "avif, webp"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let store = temp.path + "/configured"
        let updated = try PkgctlProcess.run(["update", "--root", store, "--manifest", "file://" + origin + "/manifest.json",
                                             "--no-report"], environment: ["PKGCTL_CONFIG": config])
        #expect(updated.status == 0, "\(updated.stderr)")
        #expect(try installed(store) == ["img/a.png.webp", "img/b.png.webp", "index.html"], "no AVIF was published")

        let plain = temp.path + "/plain"
        #expect(try PkgctlProcess.run(["update", "--root", plain, "--manifest", "file://" + origin + "/manifest.json",
                                       "--no-report"]).status == 0)
        #expect(try installed(plain) == ["img/a.png", "img/a.png.webp", "img/b.png", "img/b.png.webp", "index.html"])
        #expect(try PkgctlProcess.run(["verify", "--root", plain]).stdout == "app 1.0: ok\n")
    }

    @Test func unknownFormatsAreRefusedInOneLine() throws {
        let update = try PkgctlProcess.run(["update", "--root", temp.path + "/bad", "--manifest",
                                            "file://" + origin + "/manifest.json", "--accept-images", "webp,gif"])
        #expect(update.status == 64)
        #expect(update.stderr.split(separator: "\n").count == 1 && update.stderr.contains("--accept-images"),
                "\(update.stderr)")
        let config = temp.path + "/bad.json"
        try Data(#"{"update": {"accept-images": "png"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let configured = try PkgctlProcess.run(["update", "--root", temp.path + "/bad", "--manifest",
                                                "file://" + origin + "/manifest.json"], environment: ["PKGCTL_CONFIG": config])
        #expect(configured.status == 78)
        #expect(configured.stderr.split(separator: "\n").count == 1 && configured.stderr.contains("update.accept-images"),
                "\(configured.stderr)")
        let pack = try PkgctlProcess.run(["pack", temp.path, "--name", "x", "--version", "1", "--out", temp.path + "/o",
                                          "--image-variants", "jpegxl"])
        #expect(pack.status == 64)
        #expect(pack.stderr.split(separator: "\n").count == 1 && pack.stderr.contains("--image-variants"), "\(pack.stderr)")
    }
}
