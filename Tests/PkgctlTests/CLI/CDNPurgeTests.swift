import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// docs/PUBLISHING.md, "Purging a cached file", against a real cache (Varnish) in front of nginx
/// with the shipped origin include: a content-named file that goes bad at the origin is kept by
/// the cache for a year (`immutable`), so fixing it at the origin does not help devices; after
/// the purge the page gives for Varnish, they install on their next run.
@Suite
struct CDNPurgeTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let device: String
    let origin: NginxOrigin
    let cdn: VarnishCache

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = try temp.makeDirectory("dest")
        device = temp.path + "/device"
        origin = try NginxOrigin(root: dest, accessLog: true, originConfig: true)
        cdn = try VarnishCache(originPort: origin.port)
    }

    /// One `pkgctl update --json` of the device, through the cache.
    func update(sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int32, report: UpdateReport) {
        let run = try PkgctlProcess.run(["update", "--root", device, "--manifest", cdn.baseURL + "/manifest.json",
                                         "--device-id", "device", "--json"])
        let report = try #require(try? JSONDecoder().decode(UpdateReport.self, from: Data(run.stdout.utf8)),
                                  "stdout \(run.stdout) stderr \(run.stderr)", sourceLocation: sourceLocation)
        return (run.status, report)
    }

    func active() -> String? {
        PackageStore(root: device).activeVersion(of: "demo")
    }

    /// How many times the origin was asked for the URL path `path`.
    func originRequests(_ path: String) -> Int {
        origin.settledAccessLog().filter { $0.hasPrefix(path + " ") }.count
    }

    @Test func aCorruptZipTheCacheKeptIsServedAfterTheFixUntilPurgedThenDevicesInstall() throws {
        let packed = try PkgctlProcess.run(["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
                                            "--out", out, "--route", "www.example.com/app"])
        #expect(packed.status == 0, "\(packed.stderr)")
        let published = try PkgctlProcess.run(["publish", out, dest])
        #expect(published.status == 0, "\(published.stderr)")
        let entry = try #require(try PublishedManifest.read(dest + "/manifest.json")?.manifest.packages.first)
        // A new device has nothing to build a delta on or reuse files from: it fetches the zip.
        let zip = dest + "/" + entry.url, path = "/" + entry.url
        let good = try #require(try FileSystem.read(zip))

        // The zip goes bad at the origin before any device asked for it: one byte, same size.
        var bad = good
        bad[bad.count / 2] ^= 0xff
        try FileSystem.writeAtomically(bad, to: zip)

        // The cache fetches the bad zip and keeps it; the device refuses it and installs nothing.
        let first = try update()
        #expect(first.status == 1)
        #expect(first.report.packages.map(\.action) == [.failed], "\(first.report)")
        #expect(first.report.packages.first?.errorCode == "checksumMismatch", "\(first.report)")
        #expect(active() == nil)
        #expect(try HTTPExchange.curl(cdn.baseURL + path).body == Data(bad), "the cache keeps the bad bytes")

        // The fix at the origin, as the page says: publish --verify names the file; removed, published again.
        let verify = try PkgctlProcess.run(["publish", "--verify", out, dest])
        let name = (entry.url as NSString).lastPathComponent
        #expect(verify.status == 1 && verify.stderr.contains(name + ": other bytes than its name says"), "\(verify.stderr)")
        try FileManager.default.removeItem(atPath: zip)
        let republished = try PkgctlProcess.run(["publish", out, dest])
        #expect(republished.status == 0 && republished.stdout.hasPrefix("copied 1 file ("),
                "\(republished.stdout)\(republished.stderr)")
        #expect(try FileSystem.read(zip) == good)

        // Not enough: the cache still answers with what it kept, and the device still refuses it.
        let second = try update()
        #expect(second.status == 1 && second.report.packages.first?.errorCode == "checksumMismatch", "\(second.report)")
        #expect(active() == nil)
        #expect(try HTTPExchange.curl(cdn.baseURL + path).body == Data(bad), "served from the cache after the fix")
        #expect(originRequests(path) == 1, "the cache asked the origin for the zip once: \(origin.accessLog())")

        // The purge the page gives for Varnish (with -n: this instance's working directory).
        let page = try String(contentsOfFile: BundleFixtures.repository + "/docs/PUBLISHING.md", encoding: .utf8)
        #expect(page.contains("varnishadm ban req.url == \"$path\""), "docs/PUBLISHING.md gives this command")
        try runCommand("/usr/bin/varnishadm", ["-n", cdn.workDirectory, "ban", "req.url", "==", path])

        // The device's next run installs, with the zip the cache fetched again from the origin.
        let third = try update()
        #expect(third.status == 0, "\(third.report)")
        #expect(third.report.packages.map(\.action) == [.installed], "\(third.report)")
        #expect(active() == "1.0.0")
        #expect(try HTTPExchange.curl(cdn.baseURL + path).body == Data(good))
        #expect(originRequests(path) == 2, "\(origin.accessLog())")
        let reports = origin.outcomeReports()
        #expect(reports.contains { $0.outcome == .failed && $0.errorCode == "checksumMismatch" }, "\(reports)")
        #expect(reports.last?.outcome == .installed, "\(reports)")
    }
}
