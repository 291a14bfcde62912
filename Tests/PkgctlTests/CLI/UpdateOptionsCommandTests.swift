import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The options of `update` the README lists, each driven the way a cron line or a
/// service sets it (flag, config file, environment) and shown to take effect.
@Suite struct UpdateOptionsCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    let keys: String
    let config: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
        keys = temp.path + "/keys"
        config = temp.path + "/config.json"
    }

    private func writeConfig(_ update: String) throws {
        try #"{"update": {"manifest": "\#(manifestURL)"\#(update)}}"#.write(toFile: config, atomically: true, encoding: .utf8)
    }

    private func pack(_ version: String, signedBy key: String? = nil) throws {
        let result = try PkgctlProcess.run(["pack", BundleFixtures.demoSource(version), "--name", "demo", "--version", version,
                                            "--out", origin, "--route", "www.example.com/app"]
                                           + (key.map { ["--sign", keys + "/" + $0 + ".key"] } ?? []))
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A URL option without its scheme is refused before anything is fetched, naming the option,
    /// where it came from and the URL meant, rather than fetched and the failure blamed on the
    /// manifest's relative URLs (issue 35, 2): a flag exits 64, the environment and the config file 78.
    @Test func aURLWithoutItsSchemeIsRefusedNamingWhereItCameFrom() throws {
        let site = try PublishingOrigin()
        try BundleFixtures.packDemo("1.0.0", into: site.out)
        let bare = String(site.manifestURL.dropFirst("http://".count))  // 127.0.0.1:PORT/manifest.json
        let problem = "'\(bare)' is not an http(s) or file URL (did you mean 'http://\(bare)'?)"

        let flag = try PkgctlProcess.run(["update", "--root", root, "--manifest", bare])
        #expect(flag.status == 64)
        #expect(flag.stderr == "pkgctl: --manifest \(problem)\n")
        let environment = try PkgctlProcess.run(["update", "--root", root], environment: ["PKGCTL_UPDATE_MANIFEST": bare])
        #expect(environment.status == 78)
        #expect(environment.stderr == "pkgctl: PKGCTL_UPDATE_MANIFEST: update.manifest \(problem)\n")
        try #"{"update": {"manifest": "\#(bare)"}}"#.write(toFile: config, atomically: true, encoding: .utf8)
        let file = try PkgctlProcess.run(["update", "--root", root, "--config", config])
        #expect(file.status == 78)
        #expect(file.stderr == "pkgctl: \(config): update.manifest \(problem)\n")
        #expect(site.origin.settledAccessLog().isEmpty, "nothing was fetched")
        let path = try PkgctlProcess.run(["update", "--root", root, "--manifest", site.out + "/manifest.json"])
        #expect(path.stderr == "pkgctl: --manifest '\(site.out)/manifest.json' is not an http(s) or file URL "
                + "(did you mean 'file://\(site.out)/manifest.json'?)\n")

        // The other URL options of update, the same way.
        let report = try PkgctlProcess.run(["update", "--root", root, "--manifest", site.manifestURL,
                                            "--report-url", "127.0.0.1:9/report/v1"])
        #expect(report.status == 64)
        #expect(report.stderr == "pkgctl: --report-url '127.0.0.1:9/report/v1' is not an http(s) URL "
                + "(did you mean 'http://127.0.0.1:9/report/v1'?)\n")
        let upstream = try PkgctlProcess.run(["update", "--root", root, "--manifest", site.manifestURL],
                                             environment: ["PKGCTL_UPDATE_PREFETCH_UPSTREAM": "cdn.example.com"])
        #expect(upstream.status == 78)
        #expect(upstream.stderr == "pkgctl: PKGCTL_UPDATE_PREFETCH_UPSTREAM: update.prefetch-upstream 'cdn.example.com' "
                + "is not an http(s) URL (did you mean 'http://cdn.example.com'?)\n")
        let fileUpstream = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL,
                                                  "--prefetch-upstream", "file:///srv"])
        #expect(fileUpstream.status == 64)
        #expect(fileUpstream.stderr == "pkgctl: --prefetch-upstream 'file:///srv' is not an http(s) URL\n")
        #expect(!FileManager.default.fileExists(atPath: root + "/packages/demo"))
    }

    @Test func trustedKeysComeFromTheConfigFileAsAListOrTheEnvironmentCommaSeparated() throws {
        for name in ["release", "other"] {
            #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", name]).status == 0)
        }
        try pack("1.0.0", signedBy: "release")
        let other = keys + "/other.pub", release = keys + "/release.pub"
        let releaseID = try TrustedKey(file: release).id.prefix(16), otherID = try TrustedKey(file: other).id.prefix(16)

        try writeConfig(#", "trusted-key": ["\#(other)"]"#)
        let untrusted = try PkgctlProcess.run(["update", "--root", root + "1", "--config", config])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr == "pkgctl: manifest \(manifestURL) is not signed by a trusted key "
                + "(signed by: \(releaseID); trusted keys: \(otherID))\n")
        try writeConfig(#", "trusted-key": ["\#(other)", "\#(release)"]"#)
        let listed = try PkgctlProcess.run(["update", "--root", root + "2", "--config", config])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout == "demo: installed 1.0.0\n")

        try writeConfig("")
        let alone = try PkgctlProcess.run(["update", "--root", root + "3", "--config", config],
                                          environment: ["PKGCTL_UPDATE_TRUSTED_KEY": other])
        #expect(alone.status == 1)
        #expect(alone.stderr.contains("is not signed by a trusted key"), "\(alone.stderr)")
        let both = try PkgctlProcess.run(["update", "--root", root + "4", "--config", config],
                                         environment: ["PKGCTL_UPDATE_TRUSTED_KEY": other + "," + release])
        #expect(both.status == 0, "\(both.stderr)")
        #expect(PackageStore(root: root + "4").activeVersion(of: "demo") == "1.0.0")
        // The store now requires signatures: the environment's keys were really used.
        let unsigned = try PkgctlProcess.run(["update", "--root", root + "4", "--config", config])
        #expect(unsigned.status == 1)
        #expect(unsigned.stderr.contains("has accepted signed manifests"), "\(unsigned.stderr)")
    }

    @Test func theHealthCheckComesFromTheConfigFileOrTheEnvironmentAndWaits30SecondsByDefault() throws {
        try pack("1.0.0")
        try writeConfig("")
        #expect(try PkgctlProcess.run(["update", "--root", root, "--config", config]).status == 0)
        try pack("1.1.0")
        try writeConfig(#", "health-check": "exit 3""#)
        let failed = try PkgctlProcess.run(["update", "--root", root, "--config", config])
        #expect(failed.status == 1)
        #expect(failed.stderr == "pkgctl: demo 1.1.0: health check exited 3; switched back to 1.0.0 and held 1.1.0\n")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")

        // From the environment, over the file's: a check that takes 2 s passes, as the
        // default timeout is 30 s (pkgctl config says so).
        #expect(try PkgctlProcess.run(["unhold", "--root", root, "demo"]).status == 0)
        let marker = temp.path + "/checked"
        let slow = try PkgctlProcess.run(["update", "--root", root, "--config", config],
                                         environment: ["PKGCTL_UPDATE_HEALTH_CHECK": "sleep 2 && touch \(marker)"])
        #expect(slow.status == 0, "\(slow.stderr)")
        #expect(FileManager.default.fileExists(atPath: marker), "the environment's check ran to its end")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.1.0")
        let settings = try PkgctlProcess.run(["config", "--config", config])
        #expect(settings.stdout.split(separator: "\n").contains { $0.hasPrefix("update.health-timeout") && $0.hasSuffix(" 30  (default)") },
                "\(settings.stdout)")
    }

    @Test func theZipBombLimitsApplyFromTheCommandLine() throws {
        let source = temp.path + "/site"
        try FileManager.default.createDirectory(atPath: source + "/js", withIntermediateDirectories: true)
        // 2 MiB of hex digits: deflate gets about 2:1, far below the default 200:1.
        var generator = SplitMix(seed: 7)
        let hex = Array("0123456789abcdef".utf8)
        let random = generator.bytes(2 << 20)
        try Data([UInt8].filled(count: random.count) { hex[Int(random[$0] & 15)] }).write(to: URL(fileURLWithPath: source + "/js/big.js"))
        try Data("<p>".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        #expect(try PkgctlProcess.run(["pack", source, "--name", "site", "--version", "1", "--out", origin,
                                       "--route", "www.example.com"]).status == 0)
        let cases: [([String], String)] = [
            (["--max-entries", "1"], "entries, more than the limit of 1"),
            (["--max-size", "1000000"], "bundle expands to more than the limit of 1000000 bytes"),
            (["--max-ratio", "1.5"], "exceeds the limit of 1:1"),
        ]
        for (flags, reason) in cases {
            let refused = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL] + flags)
            #expect(refused.status == 1, "\(flags)")
            #expect(refused.stderr.hasPrefix("pkgctl: site 1: ") && refused.stderr.contains(reason)
                    && refused.stderr.filter { $0 == "\n" }.count == 1, "\(flags): \(refused.stderr)")
            #expect(PackageStore(root: root).activeVersion(of: "site") == nil)
            #expect(try FileSystem.contents(of: root + "/staging").isEmpty, "\(flags)")
        }
        let defaults = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL])
        #expect(defaults.status == 0, "\(defaults.stderr)")
        #expect(PackageStore(root: root).activeVersion(of: "site") == "1")
    }

    @Test func attemptsAndConnectTimeoutApplyFromTheCommandLine() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let nginx = try NginxOrigin(root: origin, accessLog: true)
        defer { nginx.stop() }
        let failing = nginx.baseURL + "/always-500/manifest.json"
        let twice = try PkgctlProcess.run(["update", "--root", root, "--manifest", failing, "--attempts", "2"])
        #expect(twice.status == 1)
        #expect(twice.stderr == "pkgctl: GET \(failing): HTTP 500 (after 2 attempts)\n")
        #expect(nginx.settledAccessLog().filter { $0.hasPrefix("/always-500/") }.count == 2)

        // A connect that hangs (a listener whose queue is full) is given up after --connect-timeout.
        let listener = try UnansweredListener()
        let hanging = "http://127.0.0.1:\(listener.port)/manifest.json"
        let started = Date()
        let timedOut = try PkgctlProcess.run(["update", "--root", root, "--manifest", hanging,
                                              "--connect-timeout", "1", "--attempts", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(timedOut.status == 1)
        #expect(timedOut.stderr.hasPrefix("pkgctl: GET \(hanging): Failed to connect to 127.0.0.1 port \(listener.port) after 1")
                && timedOut.stderr.hasSuffix(" ms: Timeout was reached\n"), "\(timedOut.stderr)")
        #expect(elapsed >= 1 && elapsed < 10, "\(elapsed) s; the default connect timeout is 10 s")
    }

    @Test func caFileTrustsAnOriginsPrivateCA() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let nginx = try NginxOrigin(root: origin, tls: true)
        defer { nginx.stop() }
        let url = nginx.baseURL + "/manifest.json"
        let untrusted = try PkgctlProcess.run(["update", "--root", root, "--manifest", url])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.hasPrefix("pkgctl: GET \(url): ") && untrusted.stderr.contains("certificate"),
                "\(untrusted.stderr)")
        let trusted = try PkgctlProcess.run(["update", "--root", root, "--manifest", url,
                                             "--ca-file", try #require(nginx.caFile)])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.stdout == "demo: installed 1.0.0\n")
    }

    @Test func retryAfterOnTheManifestIsWaitedForOrFailsAtOnceWhenTooLong() throws {
        let zip = try BundleFixtures.publishDemo(["1.0.0"], into: origin)[0].url
        let nginx = try NginxOrigin(root: origin, accessLog: true)
        defer { nginx.stop() }
        let busy = nginx.baseURL + "/busy-once/manifest.json"
        let started = Date()
        let waited = try PkgctlProcess.run(["update", "--root", root, "--manifest", busy])
        #expect(waited.status == 0, "\(waited.stderr)")
        // The manifest got 503 + Retry-After: 2, then 200; so did the zip beside it. The outcome
        // report got its 503 too, and was not tried again: it is in the log, which is all it is for.
        let log = nginx.settledAccessLog().filter { $0.hasPrefix("/busy-once/") }
        #expect(log.map { $0.split(separator: " ").prefix(2).joined(separator: " ").split(separator: "?").first ?? "" }
                == ["/busy-once/manifest.json 503", "/busy-once/manifest.json 200",
                    "/busy-once/\(zip) 503", "/busy-once/\(zip) 200", "/busy-once/report/v1"], "\(log)")
        #expect(log.last?.contains(" 503 ") == true, "\(log)")
        #expect(Date().timeIntervalSince(started) >= 4, "two waits of 2 s")

        let hour = nginx.baseURL + "/busy-for-an-hour/manifest.json"
        let startedHour = Date()
        let refused = try PkgctlProcess.run(["update", "--root", root, "--manifest", hour])
        #expect(Date().timeIntervalSince(startedHour) < 10)
        #expect(refused.status == 1)
        #expect(refused.stderr == "pkgctl: GET \(hour): HTTP 429 (the origin asks to retry after 3600 s)\n")
    }

    @Test func aDeviceIDIsOneTo256Bytes() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        for bad in ["", String(repeating: "é", count: 129)] {
            let flag = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--device-id", bad])
            #expect(flag.status == 64)
            #expect(flag.stderr == "pkgctl: --device-id must be 1 to 256 bytes\n")
        }
        let environment = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL],
                                                environment: ["PKGCTL_UPDATE_DEVICE_ID": String(repeating: "x", count: 257)])
        #expect(environment.status == 78)
        #expect(environment.stderr == "pkgctl: PKGCTL_UPDATE_DEVICE_ID: update.device-id must be 1 to 256 bytes\n")
        let longest = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL,
                                             "--device-id", String(repeating: "x", count: 256)])
        #expect(longest.status == 0, "\(longest.stderr)")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")
    }

    @Test func packagesTheManifestNoLongerListsStayInstalledAndServed() throws {
        let publisher = PublishingFolder(origin)
        let demo = try publisher.pack(source: BundleFixtures.demoSource("1.0.0"), name: "demo", version: "1.0.0", options: .init(routes: ["www.example.com/app"]))
        let other = try publisher.pack(source: BundleFixtures.demoSource("1.1.0"), name: "other", version: "1.1.0", options: .init(routes: ["other.example.com"]))
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        try FileSystem.writeAtomically(try Manifest(packages: [demo]).encoded(), to: origin + "/manifest.json")
        let update = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--keep", "1"])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(update.stdout == "demo: 1.0.0 is up to date\n", "nothing else changed, nothing removed")
        #expect(PackageStore(root: root).activeVersion(of: "other") == other.version)
        let resolved = try PkgctlProcess.run(["resolve", "--root", root, "app://other.example.com/index.html",
                                              "--accept", "text/html", "--fetch"])
        #expect(resolved.stdout.contains("package:  other 1.1.0\n") && resolved.stdout.contains("status:   200\n"),
                "\(resolved.stdout)\(resolved.stderr)")
    }
}
