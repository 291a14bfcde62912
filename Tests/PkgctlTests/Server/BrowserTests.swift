import Foundation
import Testing
@testable import PkgCore

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

    @Test func demoRendersFromThePackageWithTheOriginUpAndDown() throws {
        let site = try TemporaryDirectory(prefix: "pkgctl-site")
        let origin = try NginxOrigin(root: site.path)
        let online = try renderDemo(upstream: origin.baseURL)
        origin.stop()
        let offline = try renderDemo(upstream: origin.baseURL)
        for run in [online, offline] {
            #expect(run.dom.contains("ready: script style image data"), "\(run.dom)")
            for resourceClass in ["html", "script", "style", "image"] {
                #expect(run.log.contains { $0.contains(" 200 ") && $0.contains(" \(resourceClass) package ") },
                        "no \(resourceClass) served from the package: \(run.log)")
            }
        }
    }

    /// Serves the store, lets Chromium load the demo, stops the server with SIGINT.
    private func renderDemo(upstream: String) throws -> (dom: String, log: [String]) {
        let (server, out, err) = try PkgctlProcess.start(["serve", "--root", root, "--port", "0", "--upstream", upstream])
        defer { if server.isRunning { server.terminate() } }
        let banner = try PkgctlProcess.readLine(from: out, timeout: 20)
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://") }).description
        // `/` sends a browser on to the package's route.
        let root = try HTTPExchange.curl(String(url.dropLast("app/".count)))
        #expect(root.status == 302 && root.header("Location") == "/app/", "\(banner): \(root.status) \(root.headers)")

        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: chromiumPath)
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                             "--no-first-run", "--user-data-dir=\(temp.path)/chromium-\(UUID().uuidString)",
                             "--virtual-time-budget=10000", "--dump-dom", url + "index.html"]
        let dom = Pipe()
        browser.standardOutput = dom
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let watchdog = DispatchWorkItem { if browser.isRunning { browser.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        let page = String(decoding: dom.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        watchdog.cancel()

        kill(server.processIdentifier, SIGINT)
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile()
                         + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(server.terminationStatus == 0, "serve did not stop cleanly on SIGINT: \(log)")
        return (page, log.split(separator: "\n").map(String.init))
    }
}
