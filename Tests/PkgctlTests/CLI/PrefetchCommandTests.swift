import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl prefetch`, `pack --prefetch` and the prefetch `update` runs after an activation,
/// each run as the pkgctl executable against a real nginx origin.
@Suite(.serialized) struct PrefetchCommandTests {
    let temp: TemporaryDirectory
    let origin: ResolverOrigin

    init() throws {
        temp = try TemporaryDirectory()
        for name in ["app/a.js", "app/img/a.png", "app/late.js"] {
            _ = try temp.write(Array("origin \(name)\n".utf8), to: "site/" + name)
        }
        origin = try ResolverOrigin(root: temp.path("site"))
    }

    var originOptions: [String] { ["--upstream", origin.baseURL, "--ca-file", origin.caFile] }

    @Test func prefetchPrintsALinePerURLAndExitsNonZeroWhenOneFailed() throws {
        let sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: ["index.html": Array("local".utf8)])
        let list = try temp.write(Array("""
            # what the app shows offline
            app://www.example.com/app/a.js

            app://www.example.com/app/img/a.png
            """.utf8), to: "list.txt")
        let first = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--from", list,
                                           "app://www.example.com/app/index.html"] + originOptions)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr == "")
        #expect(first.stdout == """
            app://www.example.com/app/index.html  in package app 1.0.0
            app://www.example.com/app/a.js  fetched and kept (16 bytes)
            app://www.example.com/app/img/a.png  fetched and kept (21 bytes)
            prefetched 3 URLs: 2 fetched and kept (37 bytes), 1 already there, 0 not kept, 0 failed

            """)

        let second = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--from", list, "--concurrency", "1",
                                            "app://www.example.com/always-500/x.js"] + originOptions)
        #expect(second.status == 1)
        #expect(second.stdout == """
            app://www.example.com/always-500/x.js  failed: app://www.example.com/always-500/x.js: the origin answered 500
            app://www.example.com/app/a.js  in the overlay
            app://www.example.com/app/img/a.png  in the overlay
            prefetched 3 URLs: 0 fetched and kept (0 bytes), 2 already there, 0 not kept, 1 failed

            """)
        #expect(origin.requests(to: "/app/a.js") == 1)
        #expect(origin.requests(to: "/app/img/a.png") == 1)
    }

    @Test func prefetchRefusesBadArgumentsAndListsInOneLine() throws {
        let root = temp.path("store")
        let zero = try PkgctlProcess.run(["prefetch", "--root", root, "--concurrency", "0", "app://h/x.js"])
        #expect(zero.status == 64)
        #expect(zero.stderr == "pkgctl: --concurrency must be 1 to 64 (got 0)\n")
        let none = try PkgctlProcess.run(["prefetch", "--root", root])
        #expect(none.status == 64)
        #expect(none.stderr == "pkgctl: name at least one URL, or --from FILE\n")

        let hostile = String(repeating: "x", count: 3000)
        let list = try temp.write(Array("app://www.example.com/app/a.js\n\(hostile)\n".utf8), to: "bad.txt")
        let refused = try PkgctlProcess.run(["prefetch", "--root", root, "--from", list] + originOptions)
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr.hasPrefix("pkgctl: \(list) line 2: URL 'xxxx"), "\(refused.stderr)")
        #expect(refused.stderr.hasSuffix("…(3000 bytes)' must be 1 to 2048 bytes\n"), "\(refused.stderr)")
        #expect(origin.requests(to: "/app/a.js") == 0, "nothing is fetched from a list that is refused")
    }

    @Test func packRecordsThePrefetchListAndRefusesABadFile() throws {
        try BundleFixtures.makeTree(at: temp.path("src"), files: 2, size: 100)
        let out = temp.path("out")
        let urls = ["app://www.example.com/app/img/a.png", "app://cdn.example.org/lib.js"]
        let list = try temp.write(Array(("# offline\n" + urls.joined(separator: "\n") + "\n").utf8), to: "prefetch.txt")
        let packed = try PkgctlProcess.run(["pack", temp.path("src"), "--name", "site", "--version", "1", "--out", out,
                                            "--route", "www.example.com/app", "--prefetch", list])
        #expect(packed.status == 0, "\(packed.stderr)")
        let manifest = try #require(try PublishedManifest.read(out + "/manifest.json")).manifest
        #expect(manifest.packages.map(\.prefetch) == [urls])
        let text = try String(contentsOfFile: out + "/manifest.json", encoding: .utf8)
        #expect(text.contains("\"prefetch\""))

        for (line, reason) in [("app://user:secret@www.example.com/app/a.js", "must carry no credentials"),
                               ("app://www.example.com/app/a.js#top", "must have no fragment"),
                               ("www.example.com/app/a.js", "must be SCHEME://HOST/PATH"),
                               ("app://cdn.example.org/lib.js", nil)] {
            let bad = try temp.write(Array((urls.joined(separator: "\n") + "\n" + line + "\n").utf8), to: "bad.txt")
            let refused = try PkgctlProcess.run(["pack", temp.path("src"), "--name", "site", "--version", "2", "--out", out,
                                                 "--prefetch", bad])
            #expect(refused.status == 1)
            let expected = reason.map { "URL '\(line)' \($0)" } ?? "'\(line)' is listed twice"
            #expect(refused.stderr == "pkgctl: \(bad) line 3: \(expected)\n")
        }
        #expect(try #require(try PublishedManifest.read(out + "/manifest.json")).manifest.packages.map(\.version) == ["1"])
        // Devices left outside a rollout of the next version still get version 1's list.
        let rolled = try PkgctlProcess.run(["pack", temp.path("src"), "--name", "site", "--version", "2", "--out", out,
                                            "--route", "www.example.com/app", "--rollout", "50"])
        #expect(rolled.status == 0, "\(rolled.stderr)")
        let next = try #require(try PublishedManifest.read(out + "/manifest.json")?.manifest.packages.first)
        #expect(next.prefetch == [])
        #expect(next.rollout?.previous?.entry(name: "site").prefetch == urls)

        // A manifest whose list a device must refuse: the entry is checked like every other field.
        var entry = manifest.packages[0]
        entry.prefetch = ["app://www.example.com/app/a.js", "app://www.example.com/app/a.js"]
        #expect(throws: PkgError.self) { try entry.validate(source: "m.json") }
        entry.prefetch = (0...PrefetchList.maximumCount).map { "app://www.example.com/app/\($0).js" }
        #expect(throws: PkgError.self) { try entry.validate(source: "m.json") }
    }

    @Test func updatePrefetchesAfterActivationAndAnUnreachableURLDoesNotFailIt() throws {
        try BundleFixtures.makeTree(at: temp.path("src"), files: 2, size: 100)
        let out = temp.path("out"), root = temp.path("store")
        let urls = ["app://www.example.com/app/img/a.png", "app://www.example.com/app/late.js",
                    "app://www.example.com/always-500/gone.js"]
        for version in ["1", "2"] {
            try PublishingFolder(out).pack(source: temp.path("src"), name: "site", version: version, options: .init(routes: ["www.example.com/app"], prefetch: urls))
            if version == "1" {
                let update = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://\(out)/manifest.json",
                                                    "--no-report", "--ca-file", origin.caFile,
                                                    "--prefetch-upstream", origin.baseURL])
                #expect(update.status == 0, "a failed prefetch does not fail the update: \(update.stderr)")
                #expect(update.stdout.contains(
                    "site 1: prefetched 3 URLs: 2 fetched and kept (40 bytes), 0 already there, 0 not kept, 1 failed\n"),
                        "\(update.stdout)")
                #expect(update.stderr == "pkgctl: site 1: prefetch of app://www.example.com/always-500/gone.js failed: "
                        + "app://www.example.com/always-500/gone.js: the origin answered 500\n")
                #expect(FileManager.default.fileExists(atPath: root + "/cache/site@1/www.example.com/app/img/a.png"))
                #expect(FileManager.default.fileExists(atPath: root + "/cache/site@1/www.example.com/app/late.js"))
                // Answered from the overlay with no origin to ask.
                let offline = try Resolver(store: PackageStore(root: root),
                                           configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
                for url in urls.prefix(2) {
                    #expect(try offline.answerLocally(ResourceRequest(url: url))?.response.status == 200, "\(url)")
                }
                // A run that activates nothing prefetches nothing.
                let again = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://\(out)/manifest.json",
                                                   "--no-report", "--ca-file", origin.caFile,
                                                   "--prefetch-upstream", origin.baseURL])
                #expect(again.status == 0)
                #expect(!again.stdout.contains("prefetched"), "\(again.stdout)")
                #expect(origin.requests(to: "/app/late.js") == 1)
            }
        }
        // Version 2 activates while its origin cannot be reached: the update still succeeds.
        origin.stop()
        let started = Date()
        let offline = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://\(out)/manifest.json",
                                             "--no-report", "--ca-file", origin.caFile,
                                             "--prefetch-upstream", origin.baseURL, "--prefetch-time-limit", "20"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try PackageStore(root: root).activeVersion(of: "site") == "2")
        #expect(offline.stdout.contains("site 2: prefetched 3 URLs: 0 fetched and kept (0 bytes), 0 already there, "
                                        + "0 not kept, 3 failed\n"), "\(offline.stdout)")
        let lines = offline.stderr.split(separator: "\n")
        #expect(lines.count == 3, "\(offline.stderr)")
        #expect(lines.allSatisfy { $0.hasPrefix("pkgctl: site 2: prefetch of app://www.example.com/") })

        // Version 2's overlay is empty: without its prefetch nothing answers the image offline.
        let resolver = try Resolver(store: PackageStore(root: root),
                                    configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        #expect(try resolver.answerLocally(ResourceRequest(url: urls[0])) == nil)
    }
}
