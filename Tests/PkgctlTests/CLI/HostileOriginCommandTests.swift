import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl update` against a hostile origin as cron runs it: bounded memory and
/// time, one-line errors, the store left whole; and the publisher's and device's
/// commands for the timestamp role, gc's durability and status's expiry.
@Suite struct HostileOriginCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    let keys: String

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
        keys = temp.path + "/keys"
    }

    @Test func anEndlessOrInflatingManifestCostsAFewMegabytesAndOneLine() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let hostile = try HostileOrigin(root: origin)
        let normal = try PkgctlProcess.runMeasuringMemory(["update", "--root", root, "--manifest", hostile.baseURL + "/manifest.json"])
        #expect(normal.result.status == 0, "\(normal.result.stderr)")
        for path in ["/endless/manifest.json", "/inflating/manifest.json"] {
            let url = hostile.baseURL + path
            let run = try PkgctlProcess.runMeasuringMemory(["update", "--root", root, "--manifest", url])
            #expect(run.result.status == 1)
            #expect(run.result.stderr == "pkgctl: GET \(url): the answer is larger than 1048576 bytes (counted after "
                    + "decoding); refused\n")
            if let peak = run.peakKB, let normalPeak = normal.peakKB {
                #expect(peak <= normalPeak + 8 * 1024, "\(path): \(peak) KiB vs \(normalPeak) KiB")
            } else {
                print("skipped: the peak-memory bound of \(path): \(UninstrumentedBuild.absence)")
            }
            #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")
        }
        // The bound is the user's to set, and a smaller one holds too.
        let tight = try PkgctlProcess.run(["update", "--root", root, "--manifest", hostile.baseURL + "/endless/manifest.json",
                                           "--max-manifest-size", "4096"])
        #expect(tight.status == 1)
        #expect(tight.stderr.contains("the answer is larger than 4096 bytes"), "\(tight.stderr)")
    }

    @Test func aDrippingOriginIsReportedByURLAndRateAndTheDeadlineEndsTheRun() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let hostile = try HostileOrigin(root: origin)
        let drip = hostile.baseURL + "/drip/manifest.json"
        let started = Date()
        let slow = try PkgctlProcess.run(["update", "--root", root, "--manifest", drip, "--stall-timeout", "2",
                                          "--attempts", "1", "--json"])
        #expect(slow.status == 1)
        #expect(slow.stderr == "pkgctl: GET \(drip): slower than 1024 bytes/s over 2 s (the minimum rate); cut off\n")
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(slow.stdout.utf8)) as? [String: String])
        #expect(failure["errorCode"] == "tooSlow")
        // Above the minimum rate (1 byte per 0.8 s is 1.25 bytes/s), only the deadline ends it.
        let deadline = try PkgctlProcess.run(["update", "--root", root, "--manifest", drip, "--min-rate", "1",
                                              "--deadline", "3s", "--attempts", "1"])
        #expect(deadline.status == 1)
        #expect(deadline.stderr == "pkgctl: GET \(drip): stopped at the run's deadline (3s after it began)\n")
        #expect(Date().timeIntervalSince(started) < 20)
        // The lock was let go.
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", hostile.baseURL + "/manifest.json",
                                       "--no-wait"]).status == 0)
    }

    @Test func theNewBoundsComeFromTheConfigFileAndBadOnesAreOneLine() throws {
        let config = try temp.write(Array(#"{"update": {"deadline": "90m", "min-rate": 512, "max-manifest-size": 65536, "threshold": 1}}"#.utf8),
                                    to: "config.json")
        let shown = try PkgctlProcess.run(["config", "--config", config])
        #expect(shown.status == 0)
        let lines = shown.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        for line in ["update.deadline 90m (\(config))", "update.min-rate 512 (\(config))",
                     "update.max-manifest-size 65536 (\(config))"] {
            #expect(lines.contains(line), "\(shown.stdout)")
        }
        let cases: [([String], String)] = [
            (["--deadline", "soon"], "pkgctl: --deadline must be a duration of at least 1 second"),
            (["--deadline", "0"], "pkgctl: --deadline must be a duration of at least 1 second"),
            (["--min-rate", "0"], "pkgctl: --min-rate must be at least 1 byte per second"),
            (["--max-manifest-size", "10"], "pkgctl: --max-manifest-size must be at least 1024 bytes"),
            (["--threshold", "2"], "pkgctl: --threshold must be 1 to the number of trusted keys (0)"),
            (["--timestamp-key", "x.pub"], "pkgctl: --timestamp-key needs trusted keys too"),
        ]
        for (flags, message) in cases {
            let result = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file:///nowhere"] + flags)
            #expect(result.status == 64, "\(flags): \(result.stderr)")
            #expect(result.stderr.hasPrefix(message), "\(flags): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(flags): \(result.stderr)")
        }
    }

    /// The README's procedure for an online timestamp key, step by step with the commands.
    @Test func theTimestampRoleAsThePublisherAndTheDeviceRunIt() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", "content"]).status == 0)
        #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", "online"]).status == 0)
        let pack = try PkgctlProcess.run(["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
                                          "--out", origin, "--sign", keys + "/content.key", "--expires-in", "365"])
        #expect(pack.status == 0, "\(pack.stderr)")
        let update = ["update", "--root", root, "--manifest", "file://" + origin + "/manifest.json",
                      "--trusted-key", keys + "/content.pub", "--timestamp-key", keys + "/online.pub"]
        let missing = try PkgctlProcess.run(update)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("timestamp.json"), "\(missing.stderr)")
        let stamp = try PkgctlProcess.run(["timestamp", origin, "--key", keys + "/online.key"])
        #expect(stamp.status == 0, "\(stamp.stderr)")
        #expect(stamp.stdout.hasPrefix("\(origin)/timestamp.json  manifest sequence 1  expires "))
        let installed = try PkgctlProcess.run(update)
        #expect(installed.status == 0, "\(installed.stderr)")
        #expect(installed.stdout == "demo: installed 1.0.0\n")
        // A timestamp only vouches for a signed manifest.
        let unsigned = temp.path + "/unsigned"
        try BundleFixtures.publishDemo(["1.0.0"], into: unsigned)
        let refused = try PkgctlProcess.run(["timestamp", unsigned, "--key", keys + "/online.key"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "pkgctl: manifest \(unsigned)/manifest.json is not signed; a timestamp vouches only "
                + "for a signed manifest (pkgctl sign)\n")
    }

    @Test func statusShowsTheAcceptedManifestsExpiryAndSignRefusesToOverflow() throws {
        #expect(try PkgctlProcess.run(["keygen", "--out", keys]).status == 0)
        let pack = try PkgctlProcess.run(["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
                                          "--out", origin, "--sign", keys + "/release.key", "--expires-in", "1"])
        #expect(pack.status == 0, "\(pack.stderr)")
        // Accepted within the 5 minutes of clock skew, though a day old already by this manifest's clock.
        let manifestPath = origin + "/manifest.json"
        var manifest = try #require(try PublishedManifest.read(manifestPath)).manifest
        manifest.sequence = 5
        manifest.expires = nil
        try FileSystem.writeAtomically(try ManifestSigner(keys: [try SigningKey(file: keys + "/release.key")], validity: 1)
            .sign(manifest, now: Date().addingTimeInterval(-2)), to: manifestPath)
        let update = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://" + manifestPath,
                                            "--trusted-key", keys + "/release.pub"])
        #expect(update.status == 0, "\(update.stderr)")
        let status = try PkgctlProcess.run(["status", "--root", root])
        #expect(status.stdout.contains("signed manifest: sequence 6, EXPIRED at "), "\(status.stdout)")
        let json = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let accepted = try #require(listing["manifest"] as? [String: Any])
        #expect(accepted["sequence"] as? Int == 6)
        #expect(accepted["expired"] as? Bool == true)

        manifest.sequence = Manifest.maxSequence - 1
        try FileSystem.writeAtomically(try ManifestSigner(keys: [try SigningKey(file: keys + "/release.key")]).sign(manifest),
                                       to: manifestPath)
        let sign = try PkgctlProcess.run(["sign", manifestPath, "--key", keys + "/release.key"])
        #expect(sign.status == 1)
        #expect(sign.stderr == "pkgctl: the manifest's sequence \(Manifest.maxSequence) is at or past the largest allowed "
                + "(\(Manifest.maxSequence)) and cannot be raised; sign a manifest of your own release history\n")
    }

    /// gc's removal made durable in the order that keeps a power cut harmless: the
    /// record's unlink reaches the disk (fsync of its directory) before the version's
    /// directory is moved away, and that move is flushed too. Seen with strace.
    @Test func gcFlushesTheRecordsRemovalBeforeMovingTheVersionAway() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let update = ["update", "--root", root, "--manifest", "file://" + origin + "/manifest.json"]
        #expect(try PkgctlProcess.run(update).status == 0)
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        #expect(try PkgctlProcess.run(update).status == 0)
        let trace = temp.path + "/trace"
        let gc = try PkgctlProcess.run(["gc", "--root", root, "--keep", "1"],
                                       launcher: ["/usr/bin/strace", "-f", "-y", "-o", trace,
                                                  "-e", "trace=unlink,unlinkat,rename,renameat,renameat2,fsync"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stdout == "removed demo 1.0.0\n")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        func index(_ what: String, _ test: (String) -> Bool) throws -> Int {
            let found = calls.firstIndex(where: test)
            return try #require(found, "no \(what) in:\n\(calls.joined(separator: "\n"))")
        }
        let unlinkRecord = try index("unlink of the record") {
            $0.contains("unlink") && $0.contains("state/packages/demo/1.0.0.json")
        }
        let syncRecords = try index("fsync of the records directory") { $0.contains("fsync(") && $0.contains("state/packages/demo>") }
        let moveVersion = try index("rename of the version") { $0.contains("rename") && $0.contains("packages/demo/1.0.0\"") }
        let syncPackage = try index("fsync of the package directory") {
            $0.contains("fsync(") && $0.hasSuffix("= 0") && $0.contains(root + "/packages/demo>")
        }
        #expect(unlinkRecord < syncRecords && syncRecords < moveVersion && moveVersion < syncPackage,
                "\(calls.joined(separator: "\n"))")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.1.0")
    }
}
