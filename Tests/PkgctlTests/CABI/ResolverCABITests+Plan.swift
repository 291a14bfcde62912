import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What ABI 0.1 adds, through the C host (`Tests/CHost/resolver_host.c`, modes `plan`,
/// `offline-plan` and `sizes`) against the real library: `pkgctl_resolver_plan()` and its
/// names, `pkgctl_resolver_counters_get()`, and the `struct_size` rules of sized structs.
extension ResolverCABITests {
    @Test func planSaysPackageOverlayOriginOfflineAndRefusedWithTheClassWithoutATask() throws {
        let host = try buildHost()
        let originRoot = try temp.makeDirectory("origin")
        try FileManager.default.createDirectory(atPath: originRoot + "/app", withIntermediateDirectories: true)
        try Data(Array("console.log('from the origin')".utf8)).write(to: URL(fileURLWithPath: originRoot + "/app/late.js"))
        let origin = try NginxOrigin(root: originRoot, accessLog: true)

        // late.js written through to the overlay by a task; then nothing else is fetched.
        let warm = try runHost(host, [sandbox.root, origin.baseURL, "get", "app://www.example.com/app/late.js"])
        #expect(warm.stdout.hasPrefix("app://www.example.com/app/late.js status=200 "), "\(warm.stdout)")
        let overlay = sandbox.root + "/cache/demo@1.0.0/www.example.com/app/late.js"
        #expect(eventually(seconds: 5) { FileManager.default.fileExists(atPath: overlay) })

        let run = try runHost(host, [sandbox.root, origin.baseURL, "plan",
                                     "text/html,*/*;q=0.8", "app://www.example.com/app/index.html",
                                     "*/*", "app://www.example.com/app/js/app.js",
                                     "*/*", "app://www.example.com/app/late.js",
                                     "text/css,*/*;q=0.1", "app://www.example.com/app/missing.css",
                                     "image/avif,image/webp,*/*", "app://www.example.com/app/img/photo",
                                     "*/*", "app://www.example.com/app/data.json",
                                     "*/*", "app://www.example.com/%2e%2e/etc/passwd.js"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == [
            "app://www.example.com/app/index.html source=package class=html result=0",
            "app://www.example.com/app/js/app.js source=package class=script result=0",
            "app://www.example.com/app/late.js source=overlay class=script result=0",
            "app://www.example.com/app/missing.css source=origin class=style result=0",
            "app://www.example.com/app/img/photo source=origin class=image result=0",
            "app://www.example.com/app/data.json source=origin class=other result=0",
            "app://www.example.com/%2e%2e/etc/passwd.js source=refused class=script result=0",
            "counters started=0 succeeded=0 failed=0 stopped=0 body_bytes=0",
        ], "\(run.stdout)")

        // Offline, a miss is an offline one; the package and the overlay answer as before.
        let offline = try runHost(host, [sandbox.root, origin.baseURL, "offline-plan",
                                         "*/*", "app://www.example.com/app/nowhere.js",
                                         "*/*", "app://www.example.com/app/late.js",
                                         "text/html", "app://www.example.com/app/index.html"])
        #expect(offline.stdout.split(separator: "\n").prefix(3).map(String.init) == [
            "app://www.example.com/app/nowhere.js source=offline class=script result=0",
            "app://www.example.com/app/late.js source=overlay class=script result=0",
            "app://www.example.com/app/index.html source=package class=html result=0",
        ], "\(offline.stdout)")
        // Planning fetched nothing: the origin saw the one write-through only.
        let fetched = origin.settledAccessLog().map { String($0.split(separator: " ")[0]) }
        #expect(fetched == ["/app/late.js"], "\(fetched)")
    }

    @Test func theClassNamesAreTheResolversOwn() throws {
        let host = try buildHost()
        let pairs = [("text/html", "/app/"), ("*/*", "/app/a.js"), ("*/*", "/app/a.css"), ("*/*", "/app/a.png"),
                     ("*/*", "/app/a.woff2")]
        let run = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "plan"]
                              + pairs.flatMap { [$0.0, "app://www.example.com" + $0.1] })
        let classes = run.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("class=") }.map { String($0.dropFirst(6)) }
        }
        #expect(classes == pairs.map { ResourceClass.classify(accept: $0.0, path: $0.1).rawValue }, "\(run.stdout)")
        #expect(Set(classes) == Set(ResourceClass.allCases.map(\.rawValue)), "every class has its C value")
    }

    @Test func sizedStructsTakeABI0OptionsRefuseTooSmallAndWriteOnlyWhatFits() throws {
        let host = try buildHost()
        let run = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "sizes", "app://www.example.com/app/index.html"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 13, "\(run.stdout)")
        guard lines.count == 13 else { return }
        // ABI 0's pkgctl_resolver_options is 48 bytes (x86_64), as big as today's: accepted.
        #expect(lines[0] == "options 48 ok")
        #expect(lines[1] == "options 40 refused: pkgctl_resolver_options.struct_size is 40, less than the 48 bytes "
                + "of its first version (ABI 0): set it to sizeof(pkgctl_resolver_options)")
        #expect(lines[2].hasPrefix("options 4 refused: pkgctl_resolver_options.struct_size is 4, less than the 48 bytes"))
        // A newer header's larger struct: its unknown tail zero (defaults) is taken, a set byte is not.
        #expect(lines[3] == "options 64 ok")
        #expect(lines[4] == "options 64 refused: pkgctl_resolver_options.struct_size is 64 and byte 56 is set, past "
                + "the 48 bytes this library knows: an option of a newer pkgctl/resolver.h it cannot honour")
        #expect(lines[5] == "options 1048576 refused: pkgctl_resolver_options.struct_size is 1048576, over 4096: "
                + "not a size of pkgctl_resolver_options; set it to sizeof(pkgctl_resolver_options)")
        // Counters written only whole fields within struct_size (28: started, succeeded), bytes after untouched.
        #expect(lines[6] == "counters struct_size=28 returned=24 started=1 succeeded=1 untouched_after=yes")
        #expect(lines[7] == "counters struct_size=72 returned=56 same_as_abi0=yes untouched_after=yes")
        #expect(lines[8] == "counters struct_size=8 returned=0 untouched_after=yes")
        #expect(lines[9] == "plan struct_size=12 result=0 source=package untouched_after=yes")
        #expect(lines[10] == "plan struct_size=8 result=1 untouched_after=yes")
        #expect(lines[11] == "names unknown unknown image")
        #expect(lines[12].hasPrefix("counters started=1 succeeded=1 failed=0 "), "the ABI-0 call still works: \(lines[12])")
    }
}
