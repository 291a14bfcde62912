import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

private let chromiumPath = "/usr/bin/chromium"

/// The sample demo in a real browser: headless Chromium loads it through
/// `pkgctl serve`; the page's script writes its verdict into the DOM.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: chromiumPath), "needs chromium (scripts/setup --test)"))
struct BrowserTests {
    let temp: TemporaryDirectory
    let root: String

    init() throws {
        temp = try TemporaryDirectory()
        root = temp.path + "/store"
        let origin = temp.path + "/origin"
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try Updater(store: PackageStore(root: root), manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
    }

    /// Origin up: the demo comes from the package and a page the package lacks (with its
    /// script) comes from the origin and is written through. Origin down: the demo and the
    /// written-through page still render, and a page never fetched fails cleanly with a 502
    /// while the server goes on serving.
    @Test func demoRendersFromThePackageWithTheOriginUpAndDown() throws {
        let site = try TemporaryDirectory(prefix: "pkgctl-site")
        _ = try site.write(Array("""
            <!doctype html><meta charset=utf-8><title>extra</title>
            <div id=out>not run</div><script src="/app/js/extra.js"></script>
            """.utf8), to: "app/extra.html")
        _ = try site.write(Array("document.getElementById('out').textContent = 'extra ran';\n".utf8), to: "app/js/extra.js")
        _ = try site.write(Array("<!doctype html><title>late</title><p>only on the origin</p>\n".utf8), to: "app/late.html")
        let origin = try NginxOrigin(root: site.path, accessLog: true)

        let online = try renderDemo(upstream: origin.baseURL) { url in
            let extra = try dumpDOM(url + "extra.html")
            #expect(extra.contains("<div id=\"out\">extra ran</div>"), "\(extra)")
        }
        #expect(online.contains { $0.contains("GET /app/extra.html 200 ") && $0.contains(" html origin ") }, "\(online)")
        #expect(online.contains { $0.contains("GET /app/js/extra.js 200 ") && $0.contains(" script origin ") }, "\(online)")
        let fetched = origin.accessLog()
        #expect(fetched.contains { $0.hasPrefix("/app/extra.html 200 ") } && fetched.contains { $0.hasPrefix("/app/js/extra.js 200 ") },
                "the origin did not see the fetches: \(fetched)")

        origin.stop()
        let offline = try renderDemo(upstream: origin.baseURL) { url in
            let extra = try dumpDOM(url + "extra.html")
            #expect(extra.contains("<div id=\"out\">extra ran</div>"), "\(extra)")
            let late = try HTTPExchange.curl(url + "late.html")
            #expect(late.status == 502, "\(late.status) \(late.headers)")
            #expect(!String(decoding: late.body, as: UTF8.self).contains("only on the origin"))
        }
        #expect(offline.contains { $0.contains("GET /app/extra.html 200 ") && $0.contains(" html overlay ") }, "\(offline)")
        #expect(offline.contains { $0.contains("GET /app/js/extra.js 200 ") && $0.contains(" script overlay ") }, "\(offline)")
        #expect(offline.contains { $0.contains("GET /app/late.html 502 ") }, "\(offline)")
        for log in [online, offline] {
            for resourceClass in ["html", "script", "style", "image"] {
                #expect(log.contains { $0.contains(" 200 ") && $0.contains(" \(resourceClass) package ") },
                        "no \(resourceClass) served from the package: \(log)")
            }
        }
    }

    /// Serves the store, lets Chromium load the demo (which must render), runs `more` with
    /// the route's URL, stops the server with SIGINT and returns its log.
    private func renderDemo(upstream: String, more: (String) throws -> Void) throws -> [String] {
        let (server, out, err) = try PkgctlProcess.start(["serve", "--root", root, "--port", "0", "--upstream", upstream])
        defer { if server.isRunning { server.terminate() } }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://") }).description
        // `/` sends a browser on to the package's route.
        let root = try HTTPExchange.curl(String(url.dropLast("app/".count)))
        #expect(root.status == 302 && root.header("Location") == "/app/", "\(banner): \(root.status) \(root.headers)")

        let dom = try dumpDOM(url + "index.html")
        #expect(dom.contains("ready: script style image data"), "\(dom)")
        try more(url)

        kill(server.processIdentifier, SIGINT)
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile()
                         + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(server.terminationStatus == 0, "serve did not stop cleanly on SIGINT: \(log)")
        return log.split(separator: "\n").map(String.init)
    }

    @Test func aSinglePageAppDeepLinkRendersWithPrecompressedScripts() throws {
        let site = temp.path + "/spa"
        let router = "const route = location.pathname;\n"
            + String(repeating: "function view(name) { return '<section>' + name + '</section>'; }\n", count: 40)
            + "document.getElementById('app').textContent = 'route=' + route;\n"
            + "addEventListener('load', () => {\n"
            + "  const entry = performance.getEntriesByType('resource').find(e => e.name.endsWith('/router.js'));\n"
            + "  document.getElementById('wire').textContent = entry && entry.encodedBodySize < entry.decodedBodySize\n"
            + "    ? 'compressed' : 'identity ' + (entry && entry.encodedBodySize);\n"
            + "});\n"
        try FileManager.default.createDirectory(atPath: site + "/js", withIntermediateDirectories: true)
        try Data(router.utf8).write(to: URL(fileURLWithPath: site + "/js/router.js"))
        try Data("""
            <!doctype html><meta charset=utf-8><title>shop</title>
            <div id=app>not routed</div><div id=wire>not loaded</div><script src="/app/js/router.js"></script>
            """.utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        let served = try packAndServe(site, name: "shop", ["--precompress", "--spa-fallback", "index.html"])
        let server = served.server
        defer { if server.isRunning { server.terminate() } }
        #expect(served.packed.contains("precompressed: br 1 file "), "\(served.packed)")
        let dom = try dumpDOM(served.url + "settings/profile")
        kill(server.processIdentifier, SIGINT)
        let log = String(decoding: served.output.fileHandleForReading.readDataToEndOfFile()
                         + served.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()

        #expect(dom.contains("route=/app/settings/profile"), "the deep link did not boot the app: \(dom)")
        #expect(dom.contains("<div id=\"wire\">compressed</div>"), "router.js did not arrive compressed: \(dom)")
        #expect(log.contains("GET /app/settings/profile 200 "), "\(log)")
        let scriptLine = try #require(log.split(separator: "\n").first { $0.contains("GET /app/js/router.js 200 ") })
        let sentBytes = try #require(Int(scriptLine.split(separator: " ").drop { $0 != "200" }.dropFirst().first ?? ""))
        #expect(sentBytes < router.utf8.count / 2, "\(scriptLine)")

        // The same folder before it is packed, previewed as it is: the deep link boots the app too
        // (the folder holds no compressed sibling, so the script arrives as it is).
        let (preview, previewOut, _) = try PkgctlProcess.start(["serve", "--source", site, "--route", "www.example.com/app",
                                                                "--spa-fallback", "index.html", "--port", "0", "--quiet"])
        defer { ProcessLaunch.stop(preview) }
        let previewBanner = try PkgctlProcess.firstLine(of: previewOut, timeout: 20)
        let previewURL = try #require(previewBanner.split(separator: " ").first { $0.hasPrefix("http://") }).description
        let previewDOM = try dumpDOM(previewURL + "settings/profile")
        #expect(previewDOM.contains("route=/app/settings/profile"), "the deep link did not boot the folder's app: \(previewDOM)")
        #expect(previewDOM.contains("<div id=\"wire\">identity "), "\(previewDOM)")
    }

    /// A page with relative asset URLs opened by its folder's name without the slash (`/app`):
    /// served there, `js/boot.js` would resolve to `/js/boot.js`, outside the package, and the
    /// page would stay blank; the 301 to `/app/` makes it boot, as nginx's does.
    @Test func aFolderOpenedWithoutItsSlashRendersWithItsRelativeAssets() throws {
        let site = temp.path + "/relative"
        try FileManager.default.createDirectory(atPath: site + "/js", withIntermediateDirectories: true)
        try Data("document.getElementById('app').textContent = 'booted at ' + location.pathname + location.search;\n".utf8)
            .write(to: URL(fileURLWithPath: site + "/js/boot.js"))
        try Data("""
            <!doctype html><meta charset=utf-8><title>relative</title>
            <div id=app>blank</div><script src="js/boot.js"></script>
            """.utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        let served = try packAndServe(site, name: "relative")
        defer { ProcessLaunch.stop(served.server) }
        #expect(served.url.hasSuffix("/app/"), "\(served.url)")
        let dom = try dumpDOM(String(served.url.dropLast()) + "?tab=2")
        #expect(dom.contains("booted at /app/?tab=2"), "the page did not boot under /app/: \(dom)")
    }

    /// `pack --image-variants avif,webp` on a photo-like PNG and a JPEG: `pkgctl serve` answers
    /// Chromium's image requests with the AVIF under the original URLs, and the page draws each
    /// one like the original (a copy without variants, drawn beside it on a canvas).
    @Test func imagesServedAsTheirVariantsRenderLikeTheOriginals() throws {
        let site = temp.path + "/gallery"
        try FileManager.default.createDirectory(atPath: site + "/img", withIntermediateDirectories: true)
        // Smooth, photo-like pictures: blurred fractal plasma.
        for (name, arguments) in [("photo.png", ["-size", "320x240", "-seed", "7", "plasma:fractal", "-blur", "0x3", "-depth", "8"]),
                                  ("shot.jpg", ["-size", "320x240", "-seed", "9", "plasma:fractal", "-blur", "0x3", "-quality", "92"])] {
            _ = try runCommand("/usr/bin/convert", arguments + [site + "/img/" + name])
            // The same bytes under a name pack makes no variant of: what the original draws like.
            try FileManager.default.copyItem(atPath: site + "/img/" + name, toPath: site + "/img/" + name + ".orig")
        }
        try Data(HybridAppPages.imagesComparedWithOriginals(["img/photo.png", "img/shot.jpg"]).utf8)
            .write(to: URL(fileURLWithPath: site + "/index.html"))
        let served = try packAndServe(site, name: "gallery", ["--image-variants", "avif,webp"])
        defer { ProcessLaunch.stop(served.server) }
        #expect(served.packed.contains("image variants: avif 2 files"), "\(served.packed)")
        let url = served.url

        let dom = try dumpDOM(url)
        let images = try #require(HybridAppPages.drawnImages(in: dom), "\(dom)")
        #expect(images.count == 2, "\(dom)")
        for image in images {
            #expect(image.size == "320x240", "\(image)")
            #expect(image.difference < 4, "the variant drew unlike the original (mean difference per channel): \(image)")
            let bytes = try #require(image.bytes, "Chromium did not say what crossed: \(image)")
            #expect(bytes.image < bytes.original, "the variant is not what crossed: \(image)")
        }
        // What crossed was the AVIF, under the PNG's URL, with Vary: Accept.
        let answer = try HTTPExchange.curl(url + "img/photo.png", ["-H", "Accept: " + chromiumImageAccept])
        #expect(answer.header("Content-Type") == "image/avif")
        #expect(answer.header("Vary") == "Accept")
    }

    /// `pack --header` declares COOP and COEP for the app's files; `pkgctl serve` sends them
    /// on the package's answers only, and Chromium grants the page `crossOriginIsolated`
    /// (SharedArrayBuffer): without the headers it does not.
    @Test func declaredHeadersMakeThePageCrossOriginIsolated() throws {
        let site = temp.path + "/isolated"
        try FileManager.default.createDirectory(atPath: site + "/js", withIntermediateDirectories: true)
        try Data("""
            <!doctype html><meta charset=utf-8><title>isolated</title><div id=out>not run</div>
            <script src="/app/js/check.js"></script>
            """.utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        try Data("""
            document.getElementById('out').textContent = 'isolated=' + self.crossOriginIsolated
              + ' sab=' + (typeof SharedArrayBuffer);
            """.utf8).write(to: URL(fileURLWithPath: site + "/js/check.js"))
        func serve(_ headers: [String]) throws -> (dom: String, page: HTTPExchange.Response, script: HTTPExchange.Response) {
            let served = try packAndServe(site, name: "iso", headers.flatMap { ["--header", $0] }, serveArguments: ["--quiet"])
            defer { kill(served.server.processIdentifier, SIGINT); served.server.waitUntilExit() }
            let url = served.url
            return (try dumpDOM(url), try HTTPExchange.curl(url), try HTTPExchange.curl(url + "js/check.js"))
        }
        let isolated = try serve(["*.html: Cross-Origin-Opener-Policy: same-origin",
                                  "*: Cross-Origin-Embedder-Policy: require-corp"])
        #expect(isolated.page.header("Cross-Origin-Opener-Policy") == "same-origin")
        #expect(isolated.page.header("Cross-Origin-Embedder-Policy") == "require-corp")
        #expect(isolated.script.header("Cross-Origin-Opener-Policy") == nil, "only the files the glob names")
        #expect(isolated.script.header("Cross-Origin-Embedder-Policy") == "require-corp")
        #expect(isolated.dom.contains("isolated=true sab=function"), "\(isolated.dom)")
        let plain = try serve([])
        #expect(plain.dom.contains("isolated=false"), "\(plain.dom)")
    }

    /// `pkgctl serve --offline` (plus `serveArguments`) over a store of its own holding `site`
    /// packed as NAME 1.0.0 with `packArguments`; stop it with `ProcessLaunch.stop(served.server)`
    /// or SIGINT.
    private struct Served {
        let server: Process
        let output: Pipe
        let errors: Pipe
        /// What `pack` printed.
        let packed: String
        /// The route's URL, `http://127.0.0.1:PORT/app/`.
        let url: String
    }

    private func packAndServe(_ site: String, name: String, _ packArguments: [String] = [],
                              serveArguments: [String] = []) throws -> Served {
        let origin = temp.path + "/\(name)-origin-\(UUID().uuidString)", store = temp.path + "/\(name)-store-\(UUID().uuidString)"
        let packed = try PkgctlProcess.run(["pack", site, "--name", name, "--version", "1.0.0", "--out", origin,
                                            "--route", "www.example.com/app"] + packArguments)
        #expect(packed.status == 0, "\(packed.stderr)")
        let updated = try PkgctlProcess.run(["update", "--root", store, "--manifest", "file://" + origin + "/manifest.json"])
        #expect(updated.status == 0, "\(updated.stderr)")
        let (server, output, errors) = try PkgctlProcess.start(["serve", "--root", store, "--port", "0", "--offline"]
                                                               + serveArguments)
        let banner = try PkgctlProcess.firstLine(of: output, timeout: 20)
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://") }).description
        return Served(server: server, output: output, errors: errors, packed: packed.stdout, url: url)
    }

    /// Loads `url` in headless Chromium and returns the DOM once the page settled.
    private func dumpDOM(_ url: String) throws -> String {
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: chromiumPath)
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--user-data-dir=\(temp.path)/chromium-\(UUID().uuidString)",
                             "--virtual-time-budget=10000", "--dump-dom", url]
        let dom = ProcessLaunch.pipe()
        browser.standardOutput = dom
        browser.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(browser)
        let watchdog = DispatchWorkItem { if browser.isRunning { browser.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        let page = String(decoding: dom.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        watchdog.cancel()
        return page
    }
}
