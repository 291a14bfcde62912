import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// keygen, pack --sign, sign, update --trusted-key / --health-check, rollback,
/// unhold and status as scripts and cron run them.
@Suite struct ReleaseCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    let keys: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
        keys = temp.path + "/keys"
    }

    private func pack(_ version: String, sign: [String] = ["release"], extra: [String] = []) throws {
        let signing = sign.flatMap { ["--sign", keys + "/" + $0 + ".key"] }
        let result = try PkgctlProcess.run(["pack", BundleFixtures.demoSource(version), "--name", "demo", "--version", version,
                                            "--out", origin, "--route", "www.example.com/app"] + signing + extra)
        #expect(result.status == 0, "\(result.stderr)")
    }

    private func update(_ extra: [String] = [], trust: [String] = ["release"]) throws -> PkgctlProcess.Result {
        let trusted = trust.flatMap { ["--trusted-key", keys + "/" + $0 + ".pub"] }
        return try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL] + trusted + extra)
    }

    @Test func keygenPackSignAndUpdateWithTrustedKeys() throws {
        let keygen = try PkgctlProcess.run(["keygen", "--out", keys])
        #expect(keygen.status == 0)
        #expect(keygen.stdout == (try TrustedKey(file: keys + "/release.pub")).id + "\n")
        #expect(try PkgctlProcess.run(["keygen", "--out", keys]).status == 1)

        try pack("1.0.0", extra: ["--expires-in", "7"])
        let first = try update()
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "demo: installed 1.0.0\n")

        let sign = try PkgctlProcess.run(["sign", origin + "/manifest.json", "--key", keys + "/release.key"])
        #expect(sign.status == 0)
        #expect(sign.stdout.contains("sequence 2"))
        let expires = try #require(try PublishedManifest.read(origin + "/manifest.json")?.manifest.expires)
        #expect(abs(expires.timeIntervalSinceNow - 30 * 86_400) < 120, "default validity is 30 days")
    }

    @Test func badKeysAndBadManifestsAreOneLineErrors() throws {
        _ = try PkgctlProcess.run(["keygen", "--out", keys])
        try pack("1.0.0")
        #expect(try update().status == 0)
        try pack("1.1.0")

        func expectOneLineFailure(_ result: PkgctlProcess.Result, _ text: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(result.status == 1, sourceLocation: sourceLocation)
            #expect(result.stderr.hasPrefix("pkgctl: "), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0", sourceLocation: sourceLocation)
        }
        expectOneLineFailure(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL,
                                                    "--trusted-key", keys + "/release.key"]), "is a private key")
        expectOneLineFailure(try PkgctlProcess.run(["sign", origin + "/manifest.json", "--key", keys + "/release.pub"]),
                             "is a public key")
        chmod(keys + "/release.key", 0o640)
        expectOneLineFailure(try PkgctlProcess.run(["sign", origin + "/manifest.json", "--key", keys + "/release.key"]),
                             "is accessible by others (mode 640)")
        chmod(keys + "/release.key", 0o600)
        // Expired, by the clock of a process started 40 days ahead (Debian's faketime), which
        // the uninstrumented build runs under: libfaketime's clock_gettime calls dlsym, which
        // allocates, and a sanitizer's allocator calls clock_gettime while holding its lock, so an
        // instrumented pkgctl deadlocks before main.
        if let measured = UninstrumentedBuild.pkgctl {
            let faketime = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL,
                                                  "--trusted-key", keys + "/release.pub"],
                                                 launcher: ["/usr/bin/faketime", "-f", "+40d"], executable: measured)
            expectOneLineFailure(faketime, "expired at")
        } else {
            print("skipped: the expired-manifest check through faketime: \(UninstrumentedBuild.absence)")
        }
        // An unsigned manifest when keys are trusted.
        _ = try PkgctlProcess.run(["keygen", "--out", keys, "--name", "other"])
        try FileManager.default.removeItem(atPath: origin + "/manifest.json")
        try pack("1.1.0", sign: [])
        expectOneLineFailure(try update(), "is not signed, and trusted keys are configured")
        expectOneLineFailure(try update(trust: ["other"]), "is not signed, and trusted keys are configured")
    }

    @Test func rollbackUnholdAndStatusShowHolds() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try update(trust: []).status == 0)
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        #expect(try update(trust: []).status == 0)
        #expect(try PkgctlProcess.run(["rollback", "--root", root, "demo"]).status == 0)

        let held = try update(["--json"], trust: [])
        #expect(held.status == 0)
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(held.stdout.utf8))
        #expect(report.packages.map(\.action) == [.held])
        let text = try update(trust: [])
        #expect(text.stdout == "demo: 1.1.0 is held back; 1.0.0 stays active (pkgctl unhold demo allows it)\n")

        let status = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let package = try #require((listing["packages"] as? [[String: Any]])?.first)
        #expect(package["held"] as? [String] == ["1.1.0"])

        #expect(try PkgctlProcess.run(["unhold", "--root", root, "demo"]).stdout
                == "demo: released 1.1.0; the next update reads the manifest again\n")
        #expect(try update(trust: []).stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n")
    }

    /// Against an origin that answers 304: after a rollback every update names the held version,
    /// also when the manifest is not modified, and unhold forgets the validators whether or not
    /// anything was held, as it says (issue 35, 9).
    @Test func updatesNameHeldVersionsAndUnholdAlwaysForgetsTheValidators() throws {
        let site = try PublishingOrigin()
        func publish(_ version: String) throws {
            try BundleFixtures.packDemo(version, into: site.out)
            try backdate(site.out + "/manifest.json")  // a strong validator: a 304 next time
        }
        func update(_ extra: [String] = []) throws -> PkgctlProcess.Result {
            try PkgctlProcess.run(["update", "--root", root, "--manifest", site.manifestURL] + extra)
        }
        func unhold() throws -> String { try PkgctlProcess.run(["unhold", "--root", root, "demo"]).stdout }
        try publish("1.0.0")
        #expect(try update().stdout == "demo: installed 1.0.0\n")
        try publish("1.1.0")
        #expect(try update().stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n")
        #expect(try update().stdout == "manifest not modified; nothing to do\n")
        #expect(try PkgctlProcess.run(["rollback", "--root", root, "demo"]).status == 0)

        let held = "demo: 1.1.0 is held back; 1.0.0 stays active (pkgctl unhold demo allows it)\n"
        #expect(try update().stdout == held, "the manifest is read again after a rollback")
        #expect(try update().stdout == "manifest not modified; nothing to do\n" + held)
        let json = try update(["--json"])
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(json.stdout.utf8))
        #expect(report.manifest == .notModified && report.packages.map(\.action) == [.held], "\(json.stdout)")
        #expect(report.packages.first.map { "\($0.from ?? "-") \($0.to)" } == "1.0.0 1.1.0")

        #expect(try unhold() == "demo: released 1.1.0; the next update reads the manifest again\n")
        #expect(try update().stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n")
        #expect(try update().stdout == "manifest not modified; nothing to do\n", "nothing held any more")
        #expect(try unhold() == "demo: no version was held; the next update reads the manifest again\n")
        #expect(try update().stdout == "demo: 1.1.0 is up to date\n", "read again, as unhold said")
    }

    /// kill -9 of `pkgctl update` while its health check runs: the next run
    /// switches back, holds the version and exits 1 with one line.
    @Test func aRunKilledDuringItsHealthCheckIsRevertedByTheNext() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try update(trust: []).status == 0)
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        let started = temp.path + "/started"
        let checkPID = temp.path + "/check.pid"
        let (process, _, _) = try PkgctlProcess.start(
            ["update", "--root", root, "--manifest", manifestURL, "--health-check",
             "echo $$ > \(checkPID); touch \(started); sleep 30", "--health-timeout", "60"])
        #expect(eventually(seconds: 30) { FileManager.default.fileExists(atPath: started) })
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.1.0", "on trial while the check runs")
        kill(process.processIdentifier, SIGKILL)
        // The check goes too (as on a reboot); Foundation's Process waits for every holder of its pipes.
        let checkGroup = Int32(String(decoding: try FileSystem.read(checkPID) ?? [], as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(checkGroup > 1)
        if checkGroup > 1 { kill(-checkGroup, SIGKILL) }
        process.waitUntilExit()

        let next = try update(trust: [])
        #expect(next.status == 1)
        #expect(next.stderr == "pkgctl: demo 1.1.0: health check did not finish (the run was stopped); "
                + "switched back to 1.0.0 and held 1.1.0\n")
        let store = PackageStore(root: root)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        #expect(try store.verify("demo").allSatisfy(\.isIntact))
        let after = try update(trust: [])
        #expect(after.status == 0)
        #expect(after.stdout.contains("1.1.0 is held back"))
    }

    @Test func healthCheckOutputStaysOffTheJSONReport() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let result = try update(["--json", "--health-check", "echo checking; exit 0"], trust: [])
        #expect(result.status == 0)
        #expect(result.stderr.contains("checking"))
        #expect(try JSONDecoder().decode(UpdateReport.self, from: Data(result.stdout.utf8)).packages.map(\.action) == [.installed])
    }
}
