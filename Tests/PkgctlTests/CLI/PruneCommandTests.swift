import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl prune` on an origin that served 50 releases of a real web app: it frees what no device
/// can be sent for, and every device, however far behind, mid-rollout or on a rollout's
/// `previous`, still updates.
@Suite struct PruneCommandTests {
    /// MkDocs 1.6.1's built theme (html, css, js, source maps, fonts, images), from its PyPI
    /// wheel, which `scripts/setup --test` downloads.
    static let wheel = (ProcessInfo.processInfo.environment["XDG_CACHE_HOME"]
        ?? NSHomeDirectory() + "/.cache") + "/pkgctl-test/mkdocs-1.6.1-py3-none-any.whl"

    let temp: TemporaryDirectory
    let out: String
    let app: String

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        app = temp.path + "/app"
        #expect(FileManager.default.fileExists(atPath: Self.wheel), "\(Self.wheel) missing: run scripts/setup --test")
        _ = try runCommand("/usr/bin/unzip", ["-q", Self.wheel, "mkdocs/themes/mkdocs/*", "-d", temp.path + "/wheel"])
        try FileManager.default.moveItem(atPath: temp.path + "/wheel/mkdocs/themes/mkdocs", toPath: app)
    }

    /// Release `number`: the theme's own script and style changed, and every fifth release its
    /// Bootstrap bundle too, as a site's releases change a few files each time. Packed by the
    /// uninstrumented build when there is one: fifty packs are the set-up, prune and update the test.
    func release(_ number: Int, _ extra: [String] = []) throws {
        for file in ["js/base.js", "css/base.css"] + (number % 5 == 0 ? ["js/bootstrap.bundle.min.js"] : []) {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: app + "/" + file))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("\n/* release \(number) */\n".utf8))
            try handle.close()
        }
        let packed = try PkgctlProcess.run(["pack", app, "--name", "site", "--version", "1.0.\(number)", "--out", out,
                                            "--route", "docs.example.com"] + extra,
                                           executable: UninstrumentedBuild.pkgctlOrThisBuild)
        #expect(packed.status == 0, "\(packed.stderr)")
    }

    func update(_ device: String) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", temp.path + "/" + device, "--manifest", "file://" + out + "/manifest.json",
                               "--device-id", device, "--no-report"])
    }

    static func size(of directory: String) throws -> Int {
        Int(try runCommand("/usr/bin/du", ["-sb", directory]).split(separator: "\t")[0]) ?? 0
    }

    @Test func pruneAfterFiftyReleasesKeepsEveryDeviceUpdating() throws {
        // An instrumented pkgctl packs ten times slower: 12 releases show the same.
        let releases = UninstrumentedBuild.pkgctl == nil ? 12 : 50
        var installed: [String: String] = [:]
        func install(_ device: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let result = try update(device)
            #expect(result.status == 0, "\(device): \(result.stderr)", sourceLocation: sourceLocation)
            installed[device] = PackageStore(root: temp.path + "/" + device).activeVersion(of: "site")
        }
        for number in 1..<releases {
            try release(number)
            if number == releases - 10 { try install("ten-behind") }
            if number == releases - 3 { try install("three-behind") }
        }
        for device in ["one-behind", "previous", "pinned"] { try install(device) }
        // The last release rolls out to 0 % of devices and to one pinned device.
        try release(releases, ["--rollout", "0"])
        let pins = try temp.write(Array("pinned\n".utf8), to: "pins.txt")
        #expect(try PkgctlProcess.run(["rollout", out, "site", "--devices", pins]).status == 0)
        #expect(installed == ["ten-behind": "1.0.\(releases - 10)", "three-behind": "1.0.\(releases - 3)",
                              "one-behind": "1.0.\(releases - 1)", "previous": "1.0.\(releases - 1)",
                              "pinned": "1.0.\(releases - 1)"])

        let manifest = try Array(Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
        let named = try ManifestReferences(manifest: manifest, in: out).files
        let before = try Self.size(of: out)
        #expect(try PkgctlProcess.run(["prune", out]).stdout.contains("\nnothing to remove; "),
                "within the default grace (25h) every file stays")
        let dryRun = try PkgctlProcess.run(["prune", out, "--grace", "0", "--dry-run"])
        #expect(try Self.size(of: out) == before, "a dry run removes nothing")
        let pruned = try PkgctlProcess.run(["prune", out, "--grace", "0", "--keep", "3"])
        #expect(pruned.status == 0, "\(pruned.stderr)")
        let removed = pruned.stdout.split(separator: "\n").filter { $0.hasPrefix("removed ") && !$0.contains(" files, ") }
        #expect(dryRun.stdout.split(separator: "\n").filter { $0.hasPrefix("would remove ") }.count == removed.count + 1)
        let after = try Self.size(of: out)
        print("prune after \(releases) releases of MkDocs' theme: \(before) → \(after) bytes, \(removed.count) files removed")
        #expect(after * 2 < before, "old releases' zips, indexes, deltas and objects are gone: \(before) → \(after)")
        let freed = try #require(pruned.stdout.split(separator: "\n").last.flatMap { line in
            line.split(separator: " ").firstIndex(of: "bytes;").map { Int(line.split(separator: " ")[$0 - 1]) ?? -1 }
        })
        #expect(freed > 0 && freed <= before - after + 4096 * removed.count, "\(pruned.stdout.split(separator: "\n").last ?? "")")
        for file in named { #expect(FileManager.default.fileExists(atPath: out + "/" + file.path), "\(file.path) stays") }
        for version in [releases, releases - 1, releases - 2].map({ "zips/site-1.0.\($0)." }) {
            #expect(try FileSystem.contents(of: out + "/zips").contains { ("zips/" + $0).hasPrefix(version) }, "\(version) stays")
        }
        #expect(try !FileSystem.contents(of: out + "/zips").contains { $0.hasPrefix("site-1.0.1.") }, "release 1 is gone")
        #expect(try PkgctlProcess.run(["prune", out, "--grace", "0", "--keep", "1"]).status == 0)
        for file in named { #expect(FileManager.default.fileExists(atPath: out + "/" + file.path), "whatever the arguments") }

        // Every device updates: the pinned one to the new release, the others to the previous.
        for device in ["ten-behind", "three-behind", "one-behind", "previous", "pinned"] { try install(device) }
        #expect(Set(installed.filter { $0.key != "pinned" }.values) == ["1.0.\(releases - 1)"])
        #expect(installed["pinned"] == "1.0.\(releases)")
        #expect(try PkgctlProcess.run(["rollout", out, "site", "100"]).status == 0)
        for device in installed.keys { try install(device) }
        #expect(Set(installed.values) == ["1.0.\(releases)"], "\(installed)")
        let verified = try PkgctlProcess.run(["verify", "--root", temp.path + "/ten-behind"])
        #expect(verified.status == 0, "\(verified.stdout)")
    }

    /// Sets every file under `folder` `hours` into the past.
    static func age(_ folder: String, hours: Double) throws {
        for case let path as String in FileManager.default.enumerator(atPath: folder)! {
            try backdate(folder + "/" + path, seconds: Int(hours * 3600))
        }
    }

    @Test func aManifestCurrentWithinTheGracePeriodKeepsItsFilesAndNothingElseIsTouched() throws {
        let demo = temp.path + "/demo"
        func pack(_ version: String, from source: String) throws {
            let packed = try PkgctlProcess.run(["pack", source, "--name", "demo", "--version", version, "--out", demo,
                                                "--delta-from", "0"])
            #expect(packed.status == 0, "\(packed.stderr)")
        }
        func archive() throws -> String {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: demo + "/manifest.json"))
            return demo + "/" + PublishedLayout.manifestArchive(sha256: PublishCommandTests.sha256(bytes))
        }
        func zip(_ version: String) throws -> Bool {
            try FileSystem.contents(of: demo + "/zips").contains { $0.hasPrefix("demo-\(version).") }
        }
        try pack("1.0.0", from: BundleFixtures.demoSource("1.0.0"))
        let first = try archive()
        // Manifests an earlier pkgctl wrote were not archived: before the archives reach back past the
        // grace period, nothing older than the first one is removed.
        try Self.age(demo, hours: 60)
        try pack("1.1.0", from: BundleFixtures.demoSource("1.1.0"))
        let second = try archive()
        try FileManager.default.removeItem(atPath: first)
        let unknown = try PkgctlProcess.run(["prune", demo, "--keep", "1"])
        #expect(unknown.stdout.hasPrefix("the archived manifests (\(demo)/manifests/) start ")
                && unknown.stdout.contains("\nnothing to remove; "), "\(unknown.stdout)")

        // 1.0.0's manifest was current until 10 h ago, within the grace period of 25 h.
        try Self.age(demo, hours: 48)
        try pack("1.2.0", from: app)
        try backdate(second, seconds: 10 * 3600)
        try backdate(try archive(), seconds: 3600)
        for stray in ["site-backup.zip", "index/about.html", "objects/notes.txt"] {
            try Data("the site's own".utf8).write(to: URL(fileURLWithPath: demo + "/" + stray))
            try backdate(demo + "/" + stray, seconds: 90 * 3600)
        }
        let kept = try PkgctlProcess.run(["prune", demo, "--keep", "1"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try zip("1.0.0") && zip("1.1.0") && zip("1.2.0"), "\(kept.stdout)")
        #expect(kept.stdout.contains("named by 2 manifests"), "\(kept.stdout)")

        // Once 1.1.0's manifest was written over 25 h ago, 1.0.0's files go; 1.1.0's stay (its manifest
        // was current an hour ago), and the site's own files are never touched.
        try backdate(second, seconds: 30 * 3600)
        let pruned = try PkgctlProcess.run(["prune", demo, "--keep", "1"])
        #expect(try !zip("1.0.0") && zip("1.1.0") && zip("1.2.0"), "\(pruned.stdout)")
        #expect(pruned.stdout.contains("removed zips/demo-1.0.0."), "\(pruned.stdout)")
        for stray in ["site-backup.zip", "index/about.html", "objects/notes.txt"] {
            #expect(FileManager.default.fileExists(atPath: demo + "/" + stray), "\(stray) is not prune's")
        }
    }
}
