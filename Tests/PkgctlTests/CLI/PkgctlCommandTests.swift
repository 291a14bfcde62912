import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The `pkgctl` executable as users and cron run it.
@Suite struct PkgctlCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
    }

    @Test func updateStatusRollbackGcAndVerify() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL]).stdout
                == "demo: installed 1.0.0\n")
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        let update = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--json"])
        #expect(update.status == 0)
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(update.stdout.utf8))
        #expect(report.packages.map(\.action) == [.upgraded])

        let status = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let packages = try #require(listing["packages"] as? [[String: Any]])
        #expect(packages.count == 1)
        #expect(packages.first?["name"] as? String == "demo")
        #expect(packages.first?["version"] as? String == "1.1.0")
        #expect(packages.first?["path"] as? String == root + "/packages/demo/1.1.0")
        #expect(packages.first?["retained"] as? [String] == ["1.0.0", "1.1.0"])

        let rollback = try PkgctlProcess.run(["rollback", "--root", root, "demo"])
        #expect(rollback.status == 0)
        #expect(rollback.stdout == "demo: 1.1.0 -> 1.0.0; 1.1.0 held (pkgctl unhold demo to allow it)\n")
        #expect(PackageStore(root: root).activeVersion(of: "demo") == "1.0.0")
        let noOlder = try PkgctlProcess.run(["rollback", "--root", root, "demo"])
        #expect(noOlder.status == 1)
        #expect(noOlder.stderr == "pkgctl: demo: no version retained before 1.0.0 to roll back to\n")

        let gc = try PkgctlProcess.run(["gc", "--root", root, "--keep", "1"])
        #expect(gc.status == 0)
        #expect(gc.stdout.isEmpty, "the active 1.0.0 and the newest 1.1.0 both stay: \(gc.stdout)")
        try FileManager.default.removeItem(atPath: root + "/packages/demo/current")
        try FileManager.default.createSymbolicLink(atPath: root + "/packages/demo/current", withDestinationPath: "1.1.0")
        let staleOverlay = root + "/cache/demo@1.0.0/www.example.com/app/extra.js"
        try FileManager.default.createDirectory(atPath: (staleOverlay as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: staleOverlay))
        #expect(try PkgctlProcess.run(["gc", "--root", root, "--keep", "1"]).stdout == "removed demo 1.0.0\n")
        #expect(!FileManager.default.fileExists(atPath: root + "/packages/demo/1.0.0"))
        #expect(!FileManager.default.fileExists(atPath: root + "/cache/demo@1.0.0"), "gc removes the version's overlay")

        #expect(try PkgctlProcess.run(["verify", "--root", root]).stdout == "demo 1.1.0: ok\n")
        try Data("tampered".utf8).write(to: URL(fileURLWithPath: root + "/packages/demo/1.1.0/js/app.js"))
        try FileManager.default.removeItem(atPath: root + "/packages/demo/1.1.0/img/logo.png")
        try Data().write(to: URL(fileURLWithPath: root + "/packages/demo/1.1.0/extra.txt"))
        let verify = try PkgctlProcess.run(["verify", "--root", root, "demo"])
        #expect(verify.status == 1)
        #expect(verify.stdout == """
            demo 1.1.0: differs from its index
              changed: js/app.js
              missing: img/logo.png
              unexpected: extra.txt

            """)
    }

    @Test func badInputGetsOneLineErrorAndNonZeroExit() throws {
        try FileManager.default.createDirectory(atPath: origin, withIntermediateDirectories: true)
        try Data("{\"schemaVersion\": 1, \"packages\": [{\"name\": 5}]}".utf8)
            .write(to: URL(fileURLWithPath: origin + "/manifest.json"))
        let malformed = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL])
        #expect(malformed.status == 1)
        #expect(malformed.stderr.hasPrefix("pkgctl: manifest \(manifestURL): packages[0].name"))
        #expect(malformed.stderr.filter { $0 == "\n" }.count == 1)

        let missing = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://" + temp.path + "/nope.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("nope.json"))

        let keep = try PkgctlProcess.run(["gc", "--root", root, "--keep", "0"])
        #expect(keep.status == 64)
        #expect(keep.stderr == "pkgctl: --keep must be at least 1\n", "\(keep.stderr)")
    }

    /// README: keygen refuses when either file exists; status lists only packages with an
    /// active version.
    @Test func keygenRefusesEitherExistingFileAndStatusListsOnlyActivePackages() throws {
        let keys = temp.path + "/keys"
        // Only the .pub left, then only the .key: either one is refused, and the other is not made.
        for (name, kept, removed) in [("a", "pub", "key"), ("b", "key", "pub")] {
            #expect(try PkgctlProcess.run(["keygen", "--out", keys, "--name", name]).status == 0)
            try FileManager.default.removeItem(atPath: "\(keys)/\(name).\(removed)")
            let refused = try PkgctlProcess.run(["keygen", "--out", keys, "--name", name])
            #expect(refused.status == 1)
            #expect(refused.stderr == "pkgctl: \(keys)/\(name).\(kept) already exists; refusing to overwrite a key\n")
            #expect(!FileManager.default.fileExists(atPath: "\(keys)/\(name).\(removed)"), "nothing half-made")
        }

        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        #expect(try PkgctlProcess.run(["status", "--root", root]).stdout.hasPrefix("demo 1.0.0  "))
        try FileManager.default.removeItem(atPath: root + "/packages/demo/current")
        let status = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        #expect((listing["packages"] as? [Any])?.isEmpty == true, "\(status.stdout)")
        #expect(try PkgctlProcess.run(["status", "--root", root]).stdout == "no packages installed under \(root)\n")
    }

    @Test func jsonFailuresCarryAStableErrorCode() throws {
        let missing = try PkgctlProcess.run(["update", "--root", root, "--manifest",
                                             "file://" + temp.path + "/nope.json", "--json"])
        #expect(missing.status == 1)
        let failure = try #require(try JSONSerialization.jsonObject(with: Data(missing.stdout.utf8)) as? [String: String])
        #expect(failure["errorCode"] == "transferFailed")
        #expect(failure["error"].map { missing.stderr == "pkgctl: \($0)\n" } == true, "\(missing.stderr)")

        let published = try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let zip = try FileHandle(forUpdating: URL(fileURLWithPath: origin + "/" + published[0].url))
        try zip.seek(toOffset: 0)
        try zip.write(contentsOf: Data("XX".utf8))
        try zip.close()
        let corrupt = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--json"])
        #expect(corrupt.status == 1)
        let report = try JSONDecoder().decode(UpdateReport.self, from: Data(corrupt.stdout.utf8))
        #expect(report.packages.map(\.action) == [.failed])
        #expect(report.packages.first?.errorCode == "checksumMismatch")
        #expect(report.packages.first?.error?.contains("demo 1.0.0") == true)

        // A bad config file fails update and status as a whole, before any store is opened.
        let config = temp.path + "/bad.json"
        try Data("{\"update\": ".utf8).write(to: URL(fileURLWithPath: config))  // not JSON
        for command in [["update", "--manifest", manifestURL], ["status"]] {
            let run = try PkgctlProcess.run(command + ["--root", root, "--config", config, "--json"])
            #expect(run.status == 78, "\(command): \(run.stderr)")
            let failure = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: String],
                                       "\(command): stdout \(run.stdout)")
            #expect(failure["errorCode"] == "invalidConfiguration")
            #expect(failure["error"].map { run.stderr == "pkgctl: \($0)\n" } == true, "\(run.stderr)")
        }
    }

    /// Byte-identical output is ArchiveTests.packingTwiceGivesIdenticalBytes; this is the command's manifest.
    @Test func packListsTheZipInTheManifestOnceWhenRepacked() throws {
        let arguments = ["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
                         "--out", origin, "--route", "www.example.com/app"]
        #expect(try PkgctlProcess.run(arguments).status == 0)
        #expect(try PkgctlProcess.run(arguments).status == 0)
        let manifest = try Manifest.parse(Array(try Data(contentsOf: URL(fileURLWithPath: origin + "/manifest.json"))),
                                          source: "manifest.json")
        #expect(manifest.packages.count == 1)
        let first = try Data(contentsOf: URL(fileURLWithPath: origin + "/" + (manifest.packages.first?.url ?? "")))
        #expect(try FileSystem.contents(of: origin + "/zips") == [PathName.lastComponent(manifest.packages[0].url)],
                "one zip: the same tree packs to the same bytes and name")
        #expect(manifest.packages.first?.routes == ["www.example.com/app"])
        #expect(manifest.packages.first?.size == UInt64(first.count))
    }

    @Test func secondUpdateWaitsForTheLockOrExitsWithNoWait() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        var lock: StoreLock? = try StoreLock(layout: StoreLayout(root: root))

        let refused = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--no-wait"])
        #expect(refused.status == 75, "EX_TEMPFAIL, so a service unit can tell a busy store from a failure")
        #expect(refused.stderr == "pkgctl: \(root)/lock is held by another pkgctl; try again when it finishes\n")

        let (waiting, out, err) = try PkgctlProcess.start(["update", "--root", root, "--manifest", manifestURL])
        let deadline = Date().addingTimeInterval(10)
        var printed = ""  // kept across reads: the line may come in pieces
        while !printed.contains("waiting for another pkgctl"), Date() < deadline {
            printed += newOutput(err, waitingMilliseconds: 20)
        }
        #expect(printed.contains("waiting for another pkgctl"), "\(printed)")
        #expect(waiting.isRunning)
        #expect(PackageStore(root: root).activeVersion(of: "demo") == nil)
        lock = nil
        _ = lock
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 0)
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "demo: installed 1.0.0\n")
    }

    /// Kills real `pkgctl update` processes at random moments; after every kill the
    /// active version is complete, and the next run cleans up and finishes.
    @Test func killedUpdatesNeverLeaveABrokenActiveVersion() throws {
        let sources = [temp.path + "/v1", temp.path + "/v2"]
        for (seed, source) in sources.enumerated() {
            try BundleFixtures.makeTree(at: source, files: 300, size: 24_000, seed: UInt64(seed + 1))
        }
        let publisher = PublishingFolder(origin)
        let entries = try [publisher.pack(source: sources[0], name: "app", version: "1", options: .init(deltaFrom: 0)),
                           publisher.pack(source: sources[1], name: "app", version: "2", options: .init(deltaFrom: 0))]
        func publish(_ entry: ManifestEntry) throws {
            try FileSystem.writeAtomically(try Manifest(packages: [entry]).encoded(), to: origin + "/manifest.json")
        }
        let store = PackageStore(root: root)
        let arguments = ["update", "--quiet", "--keep", "1", "--root", root, "--manifest", manifestURL]

        try publish(entries[0])
        let started = Date()
        #expect(try PkgctlProcess.run(arguments).status == 0)
        let fullRun = Date().timeIntervalSince(started)

        let killedMidway = try killRepeatedly(publishing: [entries[1], entries[0]], iterations: 24, seed: 42,
                                              arguments: arguments, runTime: fullRun, publish: publish)
        #expect(killedMidway >= 8, "only \(killedMidway) kills landed mid-run")

        let final = try PkgctlProcess.run(arguments)
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty)
        let directories = try FileSystem.contents(of: store.layout.packageDirectory("app")).filter { $0 != "current" }
        #expect(Set(directories) == Set(try store.retainedVersions(of: "app").map(\.entry.version)))
        #expect(try store.verify("app").allSatisfy(\.isIntact))
    }

    /// The same for delta installs: each version shares 90 % of its files with the
    /// other, so every install after the first links them and fetches the rest.
    /// No kill leaves a retained version (whose inodes the next one shares) changed.
    /// Kills mid-update by objects (`treeDelta` false) or by tree delta (true); either way
    /// the other ways are taken away from the origin, so a silent fallback fails the runs.
    @Test(arguments: [false, true])
    func killedDeltaUpdatesNeverAlterAnInstalledVersion(treeDelta: Bool) throws {
        let v1 = temp.path + "/v1", v2 = temp.path + "/v2"
        try BundleFixtures.makeTree(at: v1, files: 300, size: 24_000, seed: 1)
        try BundleFixtures.makeTree(at: v2, files: 300, size: 24_000, seed: 1)
        for path in try FileManager.default.subpathsOfDirectory(atPath: v2) where path.hasSuffix("0.bin") {
            try Data([UInt8].filled(count: 24_000) { UInt8(truncatingIfNeeded: $0 &* 7) }).write(to: URL(fileURLWithPath: v2 + "/" + path))
        }
        let publisher = PublishingFolder(origin)
        let entries = try [publisher.pack(source: v1, name: "app", version: "1", options: .init(deltaFrom: 0)),
                           publisher.pack(source: v2, name: "app", version: "2", options: .init(deltaFrom: treeDelta ? 1 : 0))]
        #expect(entries[1].deltas.count == (treeDelta ? 1 : 0))
        // Version 2's zip is gone from the origin (and with a tree delta, the objects too): only
        // the way under test can install it, so a silent fallback fails the runs below instead of passing.
        try FileManager.default.removeItem(atPath: origin + "/" + entries[1].url)
        if treeDelta { try FileManager.default.removeItem(atPath: origin + "/objects") }
        func publish(_ entry: ManifestEntry) throws {
            try FileSystem.writeAtomically(try Manifest(packages: [entry]).encoded(), to: origin + "/manifest.json")
        }
        let store = PackageStore(root: root)
        let arguments = ["update", "--quiet", "--keep", "1", "--root", root, "--manifest", manifestURL]
        try publish(entries[0])
        #expect(try PkgctlProcess.run(arguments).status == 0)
        try publish(entries[1])
        let started = Date()
        #expect(try PkgctlProcess.run(arguments).status == 0)
        let deltaRun = Date().timeIntervalSince(started)

        let killedMidway = try killRepeatedly(publishing: entries, iterations: 20, seed: 7,
                                              arguments: arguments, runTime: deltaRun, publish: publish)
        #expect(killedMidway >= 6, "only \(killedMidway) kills landed mid-run")
        #expect(try PkgctlProcess.run(arguments).status == 0)
        #expect(try store.verify("app").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.objects).isEmpty)
    }

    /// Publishes `publishing` in turn and kills `pkgctl update` at a random moment of
    /// each run (within 1.2 × `runTime`); after every kill the active version is the
    /// one before or the target, and every retained version still verifies.
    /// Returns how many kills landed while the run was still going.
    private func killRepeatedly(publishing: [ManifestEntry], iterations: Int, seed: UInt64, arguments: [String],
                                runTime: Double, publish: (ManifestEntry) throws -> Void) throws -> Int {
        let store = PackageStore(root: root)
        var generator = SplitMix(seed: seed)
        var killedMidway = 0
        for iteration in 0..<iterations {
            let before = try #require(store.activeVersion(of: "app"))
            let target = publishing[iteration % publishing.count]
            try publish(target)
            let (process, _, _) = try PkgctlProcess.start(arguments)
            Thread.sleep(forTimeInterval: runTime * 1.2 * Double(generator.next() % 1000) / 1000)
            if process.isRunning { killedMidway += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let active = try #require(store.activeVersion(of: "app"), "iteration \(iteration)")
            #expect([before, target.version].contains(active))
            let reports = try store.verify("app")
            #expect(reports.contains { $0.version == active }, "iteration \(iteration)")
            #expect(reports.filter { !$0.isIntact }.isEmpty, "iteration \(iteration): \(reports)")
        }
        return killedMidway
    }

    /// What `pipe` carries now, waiting up to `waitingMilliseconds` for it; "" when nothing came.
    private func newOutput(_ pipe: Pipe, waitingMilliseconds: Int32) -> String {
        let handle = pipe.fileHandleForReading
        var pollfd = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&pollfd, 1, waitingMilliseconds) > 0 else { return "" }
        return String(decoding: handle.availableData, as: UTF8.self)
    }
}
