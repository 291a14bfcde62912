import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl serve --source DIR`: a build folder previewed under a package's rules, before it is
/// packed: the real binary, answered to curl and raw sockets.
@Suite struct ServeSourceTests {
    let temp: TemporaryDirectory
    let site: String
    let script = "console.log('app');\n" + String(repeating: "// filler to compress\n", count: 200)

    init() throws {
        temp = try TemporaryDirectory()
        site = temp.path("site")
        for folder in ["assets", "vendor", "docs"] {
            try FileManager.default.createDirectory(atPath: site + "/" + folder, withIntermediateDirectories: true)
        }
        try write("<!doctype html><title>app</title><script src=\"assets/index-BDoW_Vkf.js\"></script>", "index.html")
        try write(script, "assets/index-BDoW_Vkf.js")
        try write("export const lib = 1;\n", "vendor/lib.js")
        try write("plain", "assets/plain.js")
        try write("<!doctype html><title>docs</title>", "docs/index.html")
        try gzip("assets/index-BDoW_Vkf.js")
    }

    private func write(_ text: String, _ name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: site + "/" + name))
    }

    private func gzip(_ name: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-k", "-9", "-n", site + "/" + name]
        try ProcessLaunch.run(process)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
    }

    /// Starts `pkgctl serve --source site ARGUMENTS` on a free port and runs `body` with its base
    /// URL; returns what the server wrote on stderr until it was stopped after `body`.
    @discardableResult
    private func serve(_ arguments: [String], body: (String) throws -> Void) throws -> String {
        let (server, out, err) = try PkgctlProcess.start(["serve", "--source", site, "--port", "0", "--quiet"] + arguments)
        let errors = PipeReader(err)
        defer { ProcessLaunch.stop(server) }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        guard let url = banner.split(separator: " ").first(where: { $0.hasPrefix("http://") }) else {
            ProcessLaunch.stop(server)
            Issue.record("no banner: \(banner) \(errors.text())")
            return ""
        }
        let base = url.replacingOccurrences(of: "/app/", with: "")
        try body(base.hasSuffix("/") ? String(base.dropLast()) : base)
        ProcessLaunch.stop(server)
        return errors.text()
    }

    /// Runs `pkgctl serve --source site --port 0 ARGUMENTS`, which must refuse to start: a server
    /// that starts instead is stopped after 20 s and fails the test. Returns its status and stderr.
    private func serveRefused(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let (server, _, err) = try PkgctlProcess.start(["serve", "--source", site, "--port", "0"] + arguments)
        let errors = PipeReader(err)
        let deadline = Date().addingTimeInterval(20)
        while server.isRunning, Date() < deadline { usleep(20_000) }
        if server.isRunning {
            ProcessLaunch.stop(server)
            Issue.record("serve \(arguments) started instead of refusing")
        }
        return (server.terminationStatus, errors.text())
    }

    @Test func aBuildFolderIsServedUnderThePackageRules() throws {
        let arguments = ["--route", "www.example.com/app", "--spa-fallback", "index.html", "--immutable", "vendor/*",
                         "--header", "*.html: Cross-Origin-Opener-Policy: same-origin"]
        try serve(arguments) { base in
            let page = try HTTPExchange.curl(base + "/app/", ["-H", "Accept: text/html"])
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("<title>app</title>"))
            #expect(page.header("Cache-Control") == "no-cache")
            #expect(page.header("Cross-Origin-Opener-Policy") == "same-origin")
            #expect(page.header("X-Pkg-Source") == "package")

            let redirect = try HTTPExchange.curl(base + "/app/docs?x=1", ["-H", "Accept: text/html"])
            #expect(redirect.status == 301 && redirect.header("Location") == "/app/docs/?x=1")

            let hashed = try HTTPExchange.curl(base + "/app/assets/index-BDoW_Vkf.js", ["--compressed"])
            #expect(hashed.status == 200 && hashed.body == Data(script.utf8), "the gzip sibling decodes to the file")
            #expect(hashed.header("Content-Encoding") == "gzip" && hashed.header("Vary") == "Accept-Encoding")
            #expect(hashed.header("Cache-Control") == "max-age=31536000, immutable")
            #expect(hashed.header("Cross-Origin-Opener-Policy") == nil, "declared for *.html only")
            #expect(try HTTPExchange.curl(base + "/app/vendor/lib.js").header("Cache-Control")
                    == "max-age=31536000, immutable", "--immutable vendor/*")
            #expect(try HTTPExchange.curl(base + "/app/assets/plain.js").header("Cache-Control") == "no-cache")

            let deepLink = try HTTPExchange.curl(base + "/app/settings/profile", ["-H", "Accept: text/html"])
            #expect(deepLink.status == 200 && deepLink.body == page.body)
            #expect(deepLink.header("Vary") == "Accept")
            // No --upstream: what the folder lacks is a 404, no origin is tried.
            #expect(try HTTPExchange.curl(base + "/app/assets/missing.js").status == 404)
        }
    }

    @Test func aFileChangedInTheFolderIsServedChangedWithNewValidators() throws {
        try serve([]) { base in
            let url = base + "/assets/plain.js"
            let first = try HTTPExchange.curl(url)
            let firstTag = try #require(first.header("ETag"))
            #expect(String(decoding: first.body, as: UTF8.self) == "plain")
            #expect(try HTTPExchange.curl(url, ["-H", "If-None-Match: \(firstTag)"]).status == 304)

            try write("PLAIN", "assets/plain.js")  // same size, rewritten in place
            let second = try HTTPExchange.curl(url, ["-H", "If-None-Match: \(firstTag)"])
            #expect(second.status == 200 && String(decoding: second.body, as: UTF8.self) == "PLAIN")
            let secondTag = try #require(second.header("ETag"))
            #expect(secondTag != firstTag)
            #expect(try HTTPExchange.curl(url, ["-H", "If-None-Match: \(secondTag)"]).status == 304)

            // A file that was missing is served once it appears, and gone once removed.
            #expect(try HTTPExchange.curl(base + "/late.js").status == 404)
            try write("late", "late.js")
            #expect(try HTTPExchange.curl(base + "/late.js").status == 200)
            try FileManager.default.removeItem(atPath: site + "/late.js")
            #expect(try HTTPExchange.curl(base + "/late.js").status == 404)
            // A precompressed sibling added later is used too.
            try write(script, "vendor/lib.js")
            try gzip("vendor/lib.js")
            #expect(try HTTPExchange.curl(base + "/vendor/lib.js", ["--compressed"]).header("Content-Encoding") == "gzip")
        }
    }

    @Test func aRemadeFolderAStaleSiblingAndAFIFOAreHandledAsABuildLeavesThem() throws {
        try serve([]) { base in
            // A sibling older than its file is the last build's: not used.
            Thread.sleep(forTimeInterval: 0.05)
            try write(script + "// rebuilt\n", "assets/index-BDoW_Vkf.js")
            let fresh = try HTTPExchange.curl(base + "/assets/index-BDoW_Vkf.js", ["--compressed"])
            #expect(fresh.header("Content-Encoding") == nil && fresh.body == Data((script + "// rebuilt\n").utf8))
            // A FIFO is no file, and opening it does not wait for a writer.
            try #require(mkfifo(site + "/pipe.js", 0o644) == 0)
            #expect(try HTTPExchange.curl(base + "/pipe.js").status == 404)
            // `rm -rf dist && build`: the new folder is served.
            try FileManager.default.removeItem(atPath: site)
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
            try write("new build", "index.html")
            let page = try HTTPExchange.curl(base + "/index.html")
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self) == "new build")
        }
    }

    @Test func nothingOutsideTheFolderIsServed() throws {
        try Data("SECRET-OUTSIDE".utf8).write(to: URL(fileURLWithPath: temp.path("secret.txt")))
        try FileManager.default.createSymbolicLink(atPath: site + "/leak.txt", withDestinationPath: "../secret.txt")
        try FileManager.default.createSymbolicLink(atPath: site + "/up", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: site + "/absolute.txt", withDestinationPath: temp.path("secret.txt"))
        try serve([]) { base in
            let port = try #require(Int(base.split(separator: ":").last ?? ""))
            for path in ["/leak.txt", "/up/secret.txt", "/absolute.txt", "/up/site/index.html",
                         "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/%2e%2e%2fsecret.txt", "/assets/%2e%2e/%2e%2e/secret.txt"] {
                let answer = try HTTPExchange.curl(base + path, ["--path-as-is"])
                #expect([400, 404].contains(answer.status), "\(path): \(answer.status)")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("SECRET"), "\(path)")
            }
            let raw = try HTTPExchange.raw(Array("GET /../secret.txt HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8),
                                           port: port)
            #expect(!raw.contains("SECRET") && (raw.hasPrefix("HTTP/1.1 400") || raw.hasPrefix("HTTP/1.1 404")), "\(raw.prefix(200))")
            // The folder itself still serves.
            #expect(try HTTPExchange.curl(base + "/assets/plain.js").status == 200)
        }
    }

    @Test(arguments: [
        (["--route", "www.example.com"], "pkgctl: --route applies to a build folder only: give serve.source (--source DIR) too\n"),
        (["--source", "SITE", "--route", "/app"], "pkgctl: --route '/app' must be HOST or HOST/PATH without a scheme\n"),
        (["--source", "SITE", "--header", "no colon"], "pkgctl: --header 'no colon' must be 'GLOB: Name: value'\n"),
        (["--source", "SITE", "--header", "*: Content-Length: 5"],
         "pkgctl: --header Content-Length is written by the server and cannot be set by a package\n"),
        (["--source", "SITE", "--spa-fallback", "../index.html"], "pkgctl: --spa-fallback '../index.html': "),
        (["--source", "SITE", "--immutable", "/abs/*"],
         "pkgctl: --immutable '/abs/*' must be 1-256 bytes, relative, without control characters\n"),
    ])
    func sourceSettingsAreRefusedByName(arguments: [String], message: String) throws {
        let result = try PkgctlProcess.run(["serve", "--port", "0"] + arguments.map { $0 == "SITE" ? site : $0 })
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(message) && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
    }

    @Test func aSpaFallbackTheFolderLacksIsRefusedInPacksWords() throws {
        // A typo: every deep link would be a 404. "docs" is a folder: its index.html is not it.
        for fallback in ["index.htm", "docs"] {
            let refused = try serveRefused(["--route", "localhost/app", "--spa-fallback", fallback])
            #expect(refused.status == 1, "\(fallback)")
            #expect(refused.stderr == "pkgctl: spaFallback '\(fallback)' is not a file of \(site)\n")
        }
    }

    @Test func aDefaultHostTheFoldersRouteCannotMatchIsRefused() throws {
        let refused = try serveRefused(["--route", "localhost/app", "--default-host", "www.example.com"])
        #expect(refused.status == 64)
        #expect(refused.stderr == "pkgctl: --default-host 'www.example.com' matches no route (routes: localhost/app); "
                + "a build folder is served only under its --route\n")
        // The route's host with a port is the route's host.
        try serve(["--route", "localhost/app", "--default-host", "localhost:8080"]) { base in
            let page = try HTTPExchange.curl(base + "/app/")
            #expect(page.status == 200)
        }
    }

    @Test func aMissIsA404ThatSaysTheBuildFolderLacksTheFile() throws {
        try serve([]) { base in
            let miss = try HTTPExchange.curl(base + "/assets/missing.js")
            #expect(miss.status == 404)
            #expect(String(decoding: miss.body, as: UTF8.self)
                    == "app://localhost/assets/missing.js is not in the build folder \(site)\n")
        }
    }

    @Test func aPathOutsideThePrefixRouteIsA404ThatNamesTheBasePathTheBuildNeeds() throws {
        // A build made for / and served under /app/ asks for /assets/…: no route holds it.
        let path = "/assets/index-BDoW_Vkf.js"
        let advice = "no route of localhost holds \(path): the build's base path likely needs to be /app/ "
            + "(Vite base, webpack output.publicPath)"
        let errors = try serve(["--route", "localhost/app"]) { base in
            for _ in 0..<2 {
                let miss = try HTTPExchange.curl(base + path, ["-H", "Referer: \(base)/app/"])
                #expect(miss.status == 404)
                #expect(String(decoding: miss.body, as: UTF8.self)
                        == "app://localhost\(path) is not in the build folder \(site); \(advice)\n")
            }
            #expect(try HTTPExchange.curl(base + "/favicon.ico").status == 404)
            // Under the route, a missing file is only missing.
            let inside = try HTTPExchange.curl(base + "/app/assets/missing.js")
            #expect(String(decoding: inside.body, as: UTF8.self)
                    == "app://localhost/app/assets/missing.js is not in the build folder \(site)\n")
        }
        // The log says it once for the route, whatever --quiet does to the access log.
        #expect(errors.components(separatedBy: "the build's base path likely needs to be /app/").count == 2, "\(errors)")
        #expect(errors.contains(advice), "\(errors)")
    }

    @Test func aMissingFolderOrAConfigFileKeyWithoutOneIsRefused() throws {
        let missing = try PkgctlProcess.run(["serve", "--port", "0", "--source", temp.path("nowhere")])
        #expect(missing.status != 0)
        #expect(missing.stderr.hasPrefix("pkgctl: ") && missing.stderr.contains(temp.path("nowhere"))
                && missing.stderr.filter { $0 == "\n" }.count == 1, "\(missing.stderr)")
        let config = temp.path("config.json")
        try Data(#"{"serve": {"spa-fallback": "index.html"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let result = try PkgctlProcess.run(["serve", "--config", config, "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr == "pkgctl: \(config): serve.spa-fallback applies to a build folder only: give serve.source (--source DIR) too\n")
    }
}
