import Foundation
import Glibc
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What the README promises of `gc`, `status`, `resolve` and `update`'s terminal
/// output, each run as the pkgctl executable.
@Suite struct StoreCommandTests {
    let temp: TemporaryDirectory
    let origin: String
    let root: String
    var manifestURL: String { "file://" + origin + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        origin = temp.path + "/origin"
        root = temp.path + "/store"
    }

    /// Publishes version `n` of "app", a tree of its own.
    private func publishApp(_ n: Int) throws {
        let source = temp.path + "/src\(n)"
        try BundleFixtures.makeTree(at: source, files: 4, size: 500, seed: UInt64(n))
        _ = try PublishingFolder(origin).pack(source: source, name: "app", version: "\(n)", options: .init(routes: ["www.example.com/app"]))
    }

    @Test func gcKeepsAPendingTrialsPreviousAndRemovesLeftoverObjects() throws {
        for n in 1...2 {
            try publishApp(n)
            #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL, "--keep", "5"]).status == 0)
        }
        // Version 3 switched in on trial by the app (the library's awaitingConfirmation): 2 is what it goes back to.
        try publishApp(3)
        let store = PackageStore(root: root)
        #expect(try Updater(store: store, manifestURL: manifestURL, keep: 5, activation: .awaitingConfirmation).run().succeeded)
        #expect(try store.trial(of: "app")?.version == "3")

        let status = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
        let package = try #require((listing["packages"] as? [[String: Any]])?.first)
        #expect((package["trial"] as? [String: Any])?["version"] as? String == "3", "\(status.stdout)")
        #expect(try PkgctlProcess.run(["status", "--root", root]).stdout.contains("on trial"))

        // What a killed delta install left: a verified object and one partly received.
        try FileSystem.makeDirectories(store.layout.objects)
        try FileSystem.writeAtomically(Array("object".utf8), to: store.layout.objects + "/" + String(repeating: "a", count: 64))
        try FileSystem.writeAtomically(Array("part".utf8),
                                       to: store.layout.objects + "/" + FileSystem.temporaryPrefix + String(repeating: "b", count: 64))

        let gc = try PkgctlProcess.run(["gc", "--root", root, "--keep", "1"])
        #expect(gc.status == 0, "\(gc.stderr)")
        #expect(gc.stdout == "removed app 1\n", "2 stays while 3 is on trial")
        #expect(FileManager.default.fileExists(atPath: root + "/packages/app/2"))
        #expect(try FileSystem.contents(of: store.layout.objects).isEmpty)

        // Confirmed, 2 is no longer needed to go back to.
        #expect(try store.locked { try store.confirm("app", version: "3") })
        #expect(try PkgctlProcess.run(["gc", "--root", root, "--keep", "1"]).stdout == "removed app 2\n")
        let confirmed = try PkgctlProcess.run(["status", "--root", root, "--json"])
        let after = try #require(try JSONSerialization.jsonObject(with: Data(confirmed.stdout.utf8)) as? [String: Any])
        #expect((after["packages"] as? [[String: Any]])?.first?["trial"] == nil, "absent when none: \(confirmed.stdout)")
    }

    @Test func resolveShowsWhereARequestGoesAndFetchesIt() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL]).status == 0)
        let local = try PkgctlProcess.run(["resolve", "--root", root, "app://www.example.com/app/", "--accept", "text/html"])
        #expect(local.status == 0)
        #expect(local.stdout == """
            class:    html
            package:  demo 1.0.0
            local:    \(root)/packages/demo/1.0.0/index.html

            """)

        // A file the package lacks goes to the origin, and --fetch brings it (written through).
        let upstreamRoot = temp.path + "/upstream"
        try FileManager.default.createDirectory(atPath: upstreamRoot + "/app", withIntermediateDirectories: true)
        try Data("late()".utf8).write(to: URL(fileURLWithPath: upstreamRoot + "/app/late.js"))
        let nginx = try NginxOrigin(root: upstreamRoot, tls: true)
        defer { nginx.stop() }
        let arguments = ["resolve", "--root", root, "app://www.example.com/app/late.js",
                         "--upstream", nginx.baseURL, "--ca-file", try #require(nginx.caFile)]
        let miss = try PkgctlProcess.run(arguments)
        #expect(miss.stdout.contains("upstream: \(nginx.baseURL)/app/late.js\n"), "\(miss.stdout)")
        #expect(miss.stdout.contains("overlay:  \(root)/cache/demo@1.0.0/www.example.com/app/late.js\n"), "\(miss.stdout)")
        let fetched = try PkgctlProcess.run(arguments + ["--fetch"])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.hasSuffix("status:   200\nbytes:    6\n"), "\(fetched.stdout)")
        #expect(eventually { (try? FileSystem.read(root + "/cache/demo@1.0.0/www.example.com/app/late.js")) == Array("late()".utf8) })
        #expect(try PkgctlProcess.run(arguments).stdout.contains("(overlay)"))

        // Offline, as an app started without network: the origin is not asked, and a fetch fails
        // with the offline message (the overlay's copy of late.js still answers).
        let offline = try PkgctlProcess.run(["resolve", "--root", root, "app://www.example.com/app/none.js", "--offline",
                                             "--upstream", nginx.baseURL])
        #expect(offline.stdout.contains("offline:  in no package and no cached answer; the origin (\(nginx.baseURL)/app/none.js) "
                                        + "is not asked\n") && !offline.stdout.contains("upstream:"), "\(offline.stdout)")
        let offlineFetch = try PkgctlProcess.run(["resolve", "--root", root, "app://www.example.com/app/none.js", "--offline",
                                                  "--upstream", nginx.baseURL, "--fetch"])
        #expect(offlineFetch.status == 1)
        #expect(offlineFetch.stderr == "pkgctl: app://www.example.com/app/none.js is in no installed package (offline)\n")
        #expect(try PkgctlProcess.run(arguments + ["--offline", "--fetch"]).stdout.hasSuffix("status:   200\nbytes:    6\n"))

        let failing = try PkgctlProcess.run(["resolve", "--root", root, "app://www.example.com/app/none.js",
                                             "--upstream", "http://127.0.0.1:1", "--fetch"])
        #expect(failing.status == 1)
        #expect(failing.stderr.hasPrefix("pkgctl: ") && failing.stderr.filter { $0 == "\n" }.count == 1, "\(failing.stderr)")
    }

    @Test func updateDrawsAProgressBarOnlyOnATerminal() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let (primary, secondary) = try #require(ProcessLaunch.terminal())
        defer { close(primary) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PkgctlProcess.executable)
        process.arguments = ["update", "--root", root, "--manifest", manifestURL]
        let out = ProcessLaunch.pipe()
        process.standardOutput = out
        process.standardError = FileHandle(fileDescriptor: secondary, closeOnDealloc: false)
        try ProcessLaunch.run(process)
        close(secondary)
        var terminal: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {  // until the child's side closes (EIO), bounded
            var ready = pollfd(fd: primary, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let count = read(primary, &buffer, buffer.count)
            if count <= 0 { break }
            terminal += buffer.prefix(count)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let drawn = String(decoding: terminal, as: UTF8.self)
        #expect(drawn.contains("\r\u{1B}[2Kdemo 1.0.0 [" + String(repeating: "#", count: 30) + "] 100%"), "\(drawn.debugDescription)")
        #expect(drawn.contains("\r\u{1B}[2Kdemo 1.0.0 extracting…"), "\(drawn.debugDescription)")
        #expect(drawn.hasSuffix("\r\u{1B}[2K"), "the bar is cleared at the end: \(drawn.debugDescription)")
        #expect(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "demo: installed 1.0.0\n")

        // Not a terminal: no bar, only the line.
        try BundleFixtures.publishDemo(["1.1.0"], into: origin)
        let piped = try PkgctlProcess.run(["update", "--root", root, "--manifest", manifestURL])
        #expect(piped.stderr.isEmpty, "\(piped.stderr.debugDescription)")
        #expect(piped.stdout == "demo: 1.0.0 -> 1.1.0 (upgraded)\n")
    }
}
