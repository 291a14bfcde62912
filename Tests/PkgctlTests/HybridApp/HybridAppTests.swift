import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension WebEngineSuites {
    /// The resolver inside a real web engine: a WebKitGTK window whose `app://` scheme the
    /// resolver answers, driven as its user would drive it (under Xvfb). Every test runs
    /// against each build of the app: the Swift one on PkgCore, the C and Qt ones on the C ABI,
    /// and the PyGObject one on the Python binding (`HybridApp`, which says how the suite finds them).
    @Suite(.serialized, .enabled(if: !HybridApp.available.isEmpty, "needs HYBRID_APP, HYBRID_APP_C, HYBRID_APP_QT or HYBRID_APP_GTK_PYTHON and a display (scripts/test)"))
    struct HybridAppTests {
        static let bigSize = 4 << 20
        let sandbox: ResolveSandbox
        let originRoot: TemporaryDirectory

        init() throws {
            sandbox = try ResolveSandbox()
            originRoot = try TemporaryDirectory(prefix: "pkgctl-hybrid-origin")
            try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
                "index.html": Array(HybridAppPages.scripts(["local", "origin"]).utf8),
                "second.html": Array(HybridAppPages.scripts(["local", "origin", "later"]).utf8),
                "post.html": Array(HybridAppPages.post.utf8),
                "storm.html": Array(HybridAppPages.storm(total: 500, parallel: 10).utf8),
                "js/local.js": Array(HybridAppPages.local.utf8),
                "navigate.html": Array(HybridAppPages.navigatesWhileLoading(images: 40).utf8),
            ])
            _ = try originRoot.write(Array("window.originRan = true;\n".utf8), to: "app/js/origin.js")
            _ = try originRoot.write(Array("window.laterRan = true;\n".utf8), to: "app/js/later.js")
        }

        func arguments(_ url: String, origin: ResolverOrigin? = nil, extra: [String] = []) -> [String] {
            var arguments = ["--root", sandbox.root, "--dump-dom", "--wait-for", HybridAppPages.waitForDone, "--timeout", "90"]
            if let origin { arguments += ["--upstream", origin.baseURL, "--ca-file", origin.caFile] }
            return arguments + extra + [url]
        }

        /// The sample demo installed in a store of its own (in `directory`) and shown at `url`,
        /// offline, until its status line is written.
        func runDemo(_ app: HybridApp, at url: String, in directory: TemporaryDirectory,
                     extra: [String] = []) throws -> HybridAppProcess.Result {
            try BundleFixtures.publishDemo(["1.0.0"], into: directory.path + "/origin")
            let root = directory.path + "/store"
            #expect(try Updater(store: PackageStore(root: root), manifestURL: "file://\(directory.path)/origin/manifest.json")
                .run().succeeded)
            return try HybridAppProcess.run(app, ["--root", root, "--offline", "--dump-dom"] + extra
                                                 + ["--wait-for", "document.getElementById('status').textContent !== 'loading…'", url])
        }

        @Test(arguments: HybridApp.available) func theDemoRendersFromThePackage(app: HybridApp) throws {
            let store = try TemporaryDirectory()
            let run = try runDemo(app, at: "app://www.example.com/app/", in: store, extra: ["--screenshot", store.path + "/demo.png"])
            #expect(run.status == 0, "\(run.log)")
            if app.fetchesTheScheme {
                #expect(run.stdout.contains("ready: script style image data"), "\(run.stdout)")
            } else {  // the demo's data is a fetch() (HybridApp.fetchesTheScheme)
                #expect(run.stdout.contains("broken: script style image data-missing") && run.fetchRefused, "\(run.stdout) \(run.log)")
            }
            for resourceClass in ["html", "script", "style", "image"] {
                #expect(run.log.contains { $0.contains(app.served(200, resourceClass, from: .package)) }, "no \(resourceClass) from the package: \(run.log)")
            }
            let png = try #require(FileManager.default.contents(atPath: store.path + "/demo.png"))
            #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]) && png.count > 1000)
            #expect(run.engineWarnings.isEmpty, "\(run.engineWarnings)")
        }

        /// A real React production build (Streamlit's front-end, `ReactBuildFixture`) published,
        /// installed and opened offline: React mounts its tree in `#root`, every script and
        /// stylesheet the page loads (the entry, its 57 modulepreloaded chunks, the stylesheet, and
        /// any chunk imported later) is answered 200 from the package, and nothing goes to an
        /// origin: the app's `fetch()` of its absent backend (`_stcore/health`) fails offline, or,
        /// in Qt 6.4, never reaches the scheme (`HybridApp.fetchesTheScheme`).
        @Test(arguments: HybridApp.available) func aReactBuildRendersFromThePackageOffline(app: HybridApp) throws {
            let store = try TemporaryDirectory()
            let root = try ReactBuildFixture.installed(in: store)
            let page = "app://\(ReactBuildFixture.route)/"
            let run = try HybridAppProcess.run(app, ["--root", root, "--offline", "--dump-dom", "--wait-for", ReactBuildFixture.mounted,
                                                     "--timeout", "90", page])
            #expect(run.status == 0, "\(run.log.suffix(20))")
            #expect(run.stdout.contains(#"<div id="root"><"#) && run.stdout.contains(#"data-testid="stApp""#),
                    "React did not mount: \(run.stdout.suffix(2000))")
            func served(_ path: String) -> String {
                page + path + app.served(200, path.hasSuffix(".css") ? "style" : "script", from: .package)
            }
            let loaded = try ReactBuildFixture.loadedByIndex()
            #expect(loaded.count == 59, "\(loaded)")
            for path in loaded {
                #expect(run.log.contains { $0.contains(served(path)) }, "\(path) not served from the package: \(run.log)")
            }
            for line in run.log {
                guard let url = line.split(separator: " ").first(where: { $0.hasPrefix("app://") }),
                      url.hasSuffix(".js") || url.hasSuffix(".css") else { continue }
                #expect(line.contains(served(String(url.dropFirst(page.count)))), "\(line)")
            }
            #expect(!run.log.contains { $0.range(of: #" [0-9-]+ [a-z]+ origin "#, options: .regularExpression) != nil }, "\(run.log)")
            if app.fetchesTheScheme {
                #expect(run.log.contains { $0.contains(page + "_stcore/health") && $0.contains("(offline)") }, "\(run.log)")
            } else {
                #expect(run.fetchRefused, "\(run.log)")
            }
        }

        /// A command line the app cannot run is refused with a line naming what is missing and the
        /// usage status (64), before any window opens.
        @Test(arguments: HybridApp.available) func aCommandLineWithoutItsStoreIsRefused(app: HybridApp) throws {
            let run = try HybridAppProcess.run(app, ["--dump-dom", "app://www.example.com/app/"])
            #expect(run.status == 64, "\(run.log)")
            #expect(run.log.contains { $0.contains("--root") }, "\(run.log)")
        }

        /// `app://www.example.com/app` (no slash) is a 301 from the resolver. WebKitGTK (2.50)
        /// does not follow a 3xx from a custom scheme ("Frame load interrupted", nothing loads),
        /// so the example answers it with a page that replaces itself with the location: the
        /// page loads at `/app/`, where its relative URLs reach its script, style and image.
        /// Qt WebEngine follows it: the Qt app answers the job with `redirect(location)` (Qt
        /// sends a 303 of its own, as 6.4's `reply()` carries no status).
        @Test(arguments: HybridApp.available) func aFolderWithoutItsSlashIsFollowedToItsPage(app: HybridApp) throws {
            let run = try runDemo(app, at: "app://www.example.com/app", in: try TemporaryDirectory())
            #expect(run.status == 0, "\(run.log)")
            if app.fetchesTheScheme {
                #expect(run.stdout.contains("ready: script style image data"), "\(run.stdout) \(run.log)")
            } else {  // HybridApp.fetchesTheScheme
                #expect(run.stdout.contains("broken: script style image data-missing"), "\(run.stdout) \(run.log)")
            }
            #expect(run.log.contains { $0.contains(app.served(301, "html", from: .package)) }, "\(run.log)")
            #expect(run.log.contains { $0.contains(app.served(200, "script", from: .package)) }, "\(run.log)")
        }

        /// A device whose engine decodes WebP (`update --accept-images webp`) holds only the WebP of a
        /// photo-like PNG and JPEG; WebKitGTK, asking for `img/photo.png`, gets the WebP under that
        /// URL and draws it like the original (a copy the pack made no variant of, compared on a canvas).
        @Test(arguments: HybridApp.available) func anImageInstalledAsItsWebPRendersLikeTheOriginal(app: HybridApp) throws {
            let directory = try TemporaryDirectory()
            let site = directory.path + "/site"
            try FileManager.default.createDirectory(atPath: site + "/img", withIntermediateDirectories: true)
            for (name, seed) in [("photo.png", "7"), ("shot.jpg", "9")] {
                _ = try runCommand("/usr/bin/convert", ["-size", "320x240", "-seed", seed, "plasma:fractal", "-blur", "0x3",
                                                        "-depth", "8", "-quality", "95", site + "/img/" + name])
                try FileManager.default.copyItem(atPath: site + "/img/" + name, toPath: site + "/img/" + name + ".orig")
            }
            try Data(HybridAppPages.imagesComparedWithOriginals(["img/photo.png", "img/shot.jpg"]).utf8)
                .write(to: URL(fileURLWithPath: site + "/index.html"))
            let packed = try PkgctlProcess.run(["pack", site, "--name", "gallery", "--version", "1", "--out", directory.path + "/origin",
                                                "--route", "www.example.com/app", "--image-variants", "webp"])
            #expect(packed.status == 0, "\(packed.stderr)")
            let root = directory.path + "/store"
            var updater = Updater(store: PackageStore(root: root), manifestURL: "file://\(directory.path)/origin/manifest.json")
            updater.acceptImages = [.webp]
            #expect(try updater.run().succeeded)
            let installed = try FileManager.default.subpathsOfDirectory(atPath: root + "/packages/gallery/1/img").sorted()
            #expect(installed == ["photo.png.orig", "photo.png.webp", "shot.jpg.orig", "shot.jpg.webp"], "\(packed.stdout)")

            let run = try HybridAppProcess.run(app, ["--root", root, "--offline", "--dump-dom", "--wait-for", HybridAppPages.waitForDone,
                                                     "--timeout", "90", "app://www.example.com/app/"])
            #expect(run.status == 0, "\(run.log)")
            let images = try #require(HybridAppPages.drawnImages(in: run.stdout), "\(run.stdout)")
            #expect(images.count == 2, "\(run.stdout)")
            for image in images {
                #expect(image.size == "320x240", "the WebP did not decode: \(image)")
                #expect(image.difference < 4, "the WebP drew unlike the original (mean difference per channel): \(image)")
            }
            #expect(run.log.contains { $0.contains("/app/img/photo.png" + app.served(200, "image", from: .package)) }, "\(run.log)")
        }

        /// `pkgctl prefetch` before going offline: a page whose script and image only the origin has
        /// renders whole in WebKitGTK with the origin stopped after a prefetch, and not without one.
        @Test(arguments: HybridApp.available) func aPagePrefetchedBeforeTheOriginStopsRendersWholeOffline(app: HybridApp) throws {
            try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
                "kiosk.html": Array(HybridAppPages.kiosk.utf8),
            ])
            _ = try originRoot.write(Array("window.originRan = true;\n".utf8), to: "app/js/origin.js")
            try FileManager.default.createDirectory(atPath: originRoot.path + "/app/img", withIntermediateDirectories: true)
            _ = try runCommand("/usr/bin/convert", ["-size", "64x48", "xc:#3366cc", originRoot.path + "/app/img/banner.png"])
            let offlineArguments = ["--root", sandbox.root, "--dump-dom", "--wait-for", HybridAppPages.waitForDone,
                                    "--timeout", "90", "--upstream", "https://127.0.0.1:9", "app://www.example.com/app/kiosk.html"]
            let cold = try HybridAppProcess.run(app, offlineArguments)
            #expect(cold.stdout.contains("script:no image:no"), "without a prefetch nothing of the origin's renders: \(cold.stdout)")

            let origin = try ResolverOrigin(root: originRoot.path)
            let prefetched = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--upstream", origin.baseURL,
                                                    "--ca-file", origin.caFile, "app://www.example.com/app/js/origin.js",
                                                    "app://www.example.com/app/img/banner.png"])
            #expect(prefetched.status == 0, "\(prefetched.stdout) \(prefetched.stderr)")
            origin.stop()
            let warm = try HybridAppProcess.run(app, offlineArguments)
            #expect(warm.status == 0, "\(warm.log)")
            #expect(warm.stdout.contains("script:yes image:64x48"), "\(warm.stdout)")
            #expect(warm.log.contains { $0.contains("/app/img/banner.png" + app.served(200, "image", from: .overlay)) }, "\(warm.log)")
        }

        /// Headers a package declares reach the page through the custom scheme (a fetch of
        /// the page's own URL reads them back), but WebKitGTK 2.50 does not make an `app://`
        /// page `crossOriginIsolated` for them, though it is a secure context; the README says so.
        /// Should a later WebKitGTK honour them, this test fails and the README must change.
        /// Qt 6.4 passes no response header to the page at all (`HybridApp.passesResponseHeaders`),
        /// and refuses `fetch()`: its page reads them back with an `XMLHttpRequest`, and gets none.
        @Test(arguments: HybridApp.available) func declaredHeadersReachThePageThroughTheCustomScheme(app: HybridApp) throws {
            let store = try TemporaryDirectory()
            let site = store.path + "/site"
            try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
            let show = """
                const show = (get) => document.getElementById('status').textContent = 'coep=' + get('cross-origin-embedder-policy')
                  + ' coop=' + get('cross-origin-opener-policy') + ' isolated=' + self.crossOriginIsolated + ' secure=' + self.isSecureContext;
                """
            let read = app.fetchesTheScheme ? "fetch('/app/index.html').then(r => show((name) => r.headers.get(name)));"
                : "const x = new XMLHttpRequest(); x.open('GET', '/app/index.html'); x.onload = () => show((name) => x.getResponseHeader(name)); x.send();"
            try Data("""
                <!doctype html><meta charset=utf-8><div id=status>loading…</div><script>
                \(show)\(read)</script>
                """.utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
            let packed = try PkgctlProcess.run(["pack", site, "--name", "iso", "--version", "1", "--out", store.path + "/origin",
                                                "--route", "www.example.com/app",
                                                "--header", "*: Cross-Origin-Opener-Policy: same-origin",
                                                "--header", "*: Cross-Origin-Embedder-Policy: require-corp"])
            #expect(packed.status == 0, "\(packed.stderr)")
            let root = store.path + "/store"
            #expect(try Updater(store: PackageStore(root: root), manifestURL: "file://\(store.path)/origin/manifest.json").run().succeeded)
            let run = try HybridAppProcess.run(app, ["--root", root, "--offline", "--dump-dom",
                                                     "--wait-for", "document.getElementById('status').textContent !== 'loading…'",
                                                     "app://www.example.com/app/"])
            #expect(run.status == 0, "\(run.log)")
            let declared = app.passesResponseHeaders ? "coep=require-corp coop=same-origin" : "coep=null coop=null"
            #expect(run.stdout.contains(declared + " isolated=false secure=true"), "\(run.stdout)")
        }

        /// A page that sets `location` while 40 of its images still load slowly from the origin:
        /// WebKit reports the superseded load as failed (cancelled), which is no failure of the
        /// app; the next page's outcome is what counts. (Before: exit 1, four runs of four.)
        @Test(arguments: HybridApp.available) func aNavigationReplacedByAnotherIsNotAFailure(app: HybridApp) throws {
            for index in 0..<40 {
                _ = try originRoot.write([UInt8](repeating: UInt8(index), count: 64 * 1024), to: "img/\(index).png")
            }
            let origin = try ResolverOrigin(root: originRoot.path)
            for attempt in 0..<2 {
                let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/navigate.html", origin: origin))
                #expect(run.status == 0, "attempt \(attempt): \(run.log)")
                #expect(run.stdout.contains("local:yes origin:yes"), "attempt \(attempt): \(run.stdout)")
                #expect(run.log.contains { $0.contains("load superseded: app://www.example.com/app/navigate.html") },
                        "attempt \(attempt): \(run.log)")
            }
        }

        @Test(arguments: HybridApp.available) func aFileThePackageLacksComesFromTheOriginAndIsWrittenThroughThenTheOriginGoesDown(app: HybridApp) throws {
            let origin = try ResolverOrigin(root: originRoot.path)
            let online = try HybridAppProcess.run(app, arguments("app://www.example.com/app/index.html", origin: origin))
            #expect(online.status == 0, "\(online.log)")
            #expect(online.stdout.contains("local:yes origin:yes later:no"), "\(online.stdout)")
            #expect(online.log.contains { $0.contains("/app/js/origin.js" + app.served(200, "script", from: .origin)) }, "\(online.log)")
            #expect(origin.requests(to: "/app/js/origin.js") == 1)
            let cached = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/js/origin.js"
            #expect(FileManager.default.contents(atPath: cached) == Data("window.originRan = true;\n".utf8))

            origin.stop()
            let offline = try HybridAppProcess.run(app, arguments("app://www.example.com/app/second.html", origin: origin))
            #expect(offline.status == 0, "\(offline.log)")
            // The package's files and the written-through one render; the one never fetched fails cleanly.
            #expect(offline.stdout.contains("local:yes origin:yes later:no"), "\(offline.stdout)")
            #expect(offline.log.contains { $0.contains("/app/js/origin.js" + app.served(200, "script", from: .overlay)) }, "\(offline.log)")
            #expect(offline.log.contains { $0.contains("/app/js/later.js") && $0.contains("failed:") }, "\(offline.log)")
            #expect(offline.engineWarnings.isEmpty, "\(offline.engineWarnings)")
        }

        /// A `Range` from the page gets its bytes with a 206. WebKit passes the header to the app and
        /// the resolver answers the range; Qt 6.4 answers a single range itself from the resource's
        /// length and a `seek()` on the app's device, which holds the resolver's 206 from its first
        /// byte (`BodyDevice::seek`).
        @Test(arguments: HybridApp.available) func aRangeRequestGetsItsBytes(app: HybridApp) throws {
            try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
                "data.txt": Array("0123456789abcdefghij".utf8),
                "range.html": Array(HybridAppPages.range("data.txt", "bytes=3-6").utf8),
            ])
            let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/range.html"))
            #expect(run.status == 0, "\(run.log)")
            #expect(run.stdout.contains("status:206 body:3456 range:bytes 3-6/20"), "\(run.stdout)")
        }

        /// Qt 6.4 gives the scheme handler no request body (`HybridApp.forwardsRequestBodies`) and
        /// refuses `fetch()` (`HybridApp.fetchesTheScheme`): its page posts with an `XMLHttpRequest`,
        /// which reaches the origin as a POST with an empty body; the answer still reaches the page.
        @Test(arguments: HybridApp.available) func aPostedStringBodyReachesTheOriginAndTheAnswerReachesThePage(app: HybridApp) throws {
            let origin = try ResolverOrigin(root: originRoot.path)
            if !app.forwardsRequestBodies {
                try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: ["post.html": Array(HybridAppPages.postWithXHR.utf8)])
                let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/post.html", origin: origin))
                #expect(run.status == 0, "\(run.log)")
                #expect(run.stdout.contains("answer:200:"), "\(run.stdout)")
                #expect(eventually { origin.accessLog().contains { $0.hasPrefix("POST /echo-post 200") } }, "\(origin.accessLog())")
                #expect(!origin.accessLog().contains { $0.contains("hello from webkit") }, "a body reached the origin: \(origin.accessLog())")
                return
            }
            let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/post.html", origin: origin))
            #expect(run.status == 0, "\(run.log)")
            #expect(run.stdout.contains("answer:posted"), "\(run.stdout)")
            #expect(eventually { origin.accessLog().contains { $0.hasPrefix("POST /echo-post 200") && $0.contains("hello from webkit") } },
                    "\(origin.accessLog())")
        }

        @Test(arguments: HybridApp.available) func anUpdateInstalledWhileTheAppRunsIsWhatAReloadShows(app: HybridApp) throws {
            let running = try HybridAppProcess(app, ["--root", sandbox.root, "--offline", "--dump-dom", "--loads", "2",
                                                     "--wait-for", HybridAppPages.waitForDone, "--timeout", "90",
                                                     "app://www.example.com/app/index.html"])
            #expect(eventually(seconds: 60) { running.stdout.contains("local:yes") })
            try sandbox.install("app", "2.0.0", routes: ["www.example.com/app"], files: [
                "index.html": Array("<!doctype html><body data-done=\"1\"><p id=\"out\">version two</p></body>".utf8),
            ])
            kill(running.process.processIdentifier, SIGHUP)
            let run = running.finish()
            #expect(run.status == 0, "\(run.log)")
            let dumps = run.stdout.components(separatedBy: "</html>")
            #expect(dumps.count == 3, "two pages: \(run.stdout)")
            #expect(dumps.first?.contains("local:yes") == true)
            #expect(dumps.dropFirst().first?.contains("version two") == true, "\(run.stdout)")
        }

        @Test(arguments: HybridApp.available) func fiveHundredLoadsAbandonedMidStreamLeaveNothingBehind(app: HybridApp) throws {
            // WebKit reads an abandoned subframe navigation to its end (no stop reaches the app: it
            // drains), so the page is 1 MiB; an aborted fetch drops its stream and the task stops.
            _ = try originRoot.write(Array("<!doctype html><title>big</title><pre>".utf8) + [UInt8](repeating: 0x20, count: 1 << 20),
                                     to: "big.html")
            _ = try originRoot.write([UInt8](repeating: 0x20, count: Self.bigSize), to: "big.bin")
            let origin = try ResolverOrigin(root: originRoot.path, slowRate: "256k")
            // Qt 6.4 refuses the fetch() half at once (HybridApp.fetchesTheScheme): its stops come
            // from the 250 iframes, whose jobs Chromium destroys when the frame navigates away.
            let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/storm.html", origin: origin), seconds: 180)
            #expect(run.status == 0, "\(run.log.suffix(20))")
            #expect(run.stdout.contains("abandoned:500"), "\(run.stdout.suffix(500))")
            #expect(run.engineWarnings.isEmpty, "\(run.engineWarnings)")
            #expect(run.count("late") == 0, "a task was answered after its stop: \(run.exitLine)")
            // Qt 6.4's Chromium at times keeps the job of a removed iframe's page after it stopped reading
            // it (held at the resolver's window) for as long as the app waits at exit (30 s): 3 and 1 of
            // the 250 on a loaded 2-core machine (2026-11-29). The app stops them at exit; the pipes and
            // sockets below show they leave nothing behind. Every other task, and every other engine's, stopped.
            let stillRunning = run.log.filter { $0.contains("(still running)") }
            let engineKept = app.name == "qt" ? stillRunning.filter { $0.contains(" app://www.example.com/stream/big.html?") } : []
            #expect(run.count("live") == engineKept.count && engineKept.count <= 3, "\(run.exitLine) \(stillRunning)")
            // Enough stops to prove the rest on: Qt's come from the 250 iframes alone, and how many are
            // still loading when their frame navigates away follows the machine's load (132 on a
            // loaded 2-core machine, 2026-11-28), so it needs a hundred of them; the others' fetches stop.
            let leastStops = app.name == "qt" ? 100 : 240
            #expect((run.count("stopped") ?? 0) >= leastStops, "the app stopped the aborted loads: \(run.exitLine)")
            // Every body pipe is closed; origin sockets are back to the resolver's idle pool (8 kept
            // for reuse, CurlMultiLoop); the rest is the engine's own (its thread pools grow under load).
            let pipes = try #require(run.range("pipes"))
            #expect(pipes.end == pipes.start, "\(run.exitLine)")
            let sockets = try #require(run.range("sockets"))
            #expect(sockets.end <= sockets.start + 8, "\(run.exitLine)")
            let descriptors = try #require(run.range("fds"))
            #expect(descriptors.end <= descriptors.start + 24, "\(run.exitLine)")
            // The resolver's own bytes are bounded above (held at most its window); the rest of the
            // process's growth is the engine's. Qt's Chromium keeps its network service and caches in
            // the app's process: 181 -> 255 MB after the 500 loads on 2026-11-28 (every task stopped,
            // 351 KiB held at the peak), where WebKitGTK's live in processes of their own.
            let memory = try #require(run.range("rss-kb"))
            let engineGrowth = app.name == "qt" ? 96 * 1024 : 64 * 1024
            #expect(memory.end <= memory.start + engineGrowth, "\(run.exitLine)")
        }

        @Test(arguments: HybridApp.available) func aPageReadingAHugeOriginFileSlowlyNeverMakesTheAppQueueMoreThanItsWindow(app: HybridApp) throws {
            let size = 200 << 20
            let digest = try RandomOriginFile.write(megabytes: size >> 20, to: "huge.bin", in: originRoot)
            try sandbox.install("app", "1.0.1", routes: ["www.example.com/app"], files: [
                "flow.html": Array(HybridAppPages.slowReader(path: "/huge.bin").utf8),
            ])
            let origin = try ResolverOrigin(root: originRoot.path)
            let run = try HybridAppProcess.run(app, arguments("app://www.example.com/app/flow.html", origin: origin), seconds: 240)
            #expect(run.status == 0, "\(run.log.suffix(20))")
            guard app.fetchesTheScheme else {
                // The page reads through fetch(), which Qt 6.4 refuses (HybridApp.fetchesTheScheme):
                // nothing of huge.bin is asked of the app. Chromium's side of the window is checked
                // with a newer Qt: PyQtHostTests.aPageReadingAHugeOriginFileSlowly….
                #expect(run.stdout.contains("error:TypeError: Failed to fetch") && run.fetchRefused, "\(run.stdout.suffix(300))")
                #expect(!run.log.contains { $0.hasPrefix("hybrid-app: GET app://") && $0.contains("/huge.bin") }, "\(run.log)")
                return
            }
            #expect(run.stdout.contains("bytes:\(size) sha256:\(digest)"), "\(run.stdout.suffix(300))")
            // What the app holds of the body itself (queued for a full pipe) never passes the
            // resolver's window: the origin transfer waited for the page instead. The process's
            // RSS is no measure of that: WebKit reads the pipe without backpressure and queues
            // what the web process has not taken in this same process, which under load held the
            // whole body (+232 MB peak, with this queue at 272 KB).
            let held = try #require(run.count("peak-held-kb"))
            let window = try #require(run.count("window-kb"))
            #expect(held > 0 && held <= window, "\(run.exitLine)")
        }
    }
}
