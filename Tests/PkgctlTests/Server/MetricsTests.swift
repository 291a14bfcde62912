import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl serve --metrics-port 0` as a process, behind an HTTPS nginx origin: known
/// traffic through curl, then `/metrics` scraped and read by prometheus-client's parser,
/// and every count checked exactly.
@Suite(.enabled(if: PrometheusScrape.parserIsInstalled, "needs prometheus-client (scripts/setup --test)"))
struct MetricsTests {
    @Test func countsKnownTrafficExactly() throws {
        let temp = try TemporaryDirectory()
        let store = PackageStore(root: temp.path + "/store")
        try BundleFixtures.publishDemo(["1.0.0"], into: temp.path + "/origin")
        #expect(try Updater(store: store, manifestURL: "file://" + temp.path + "/origin/manifest.json").run().succeeded)
        let script = Array("console.log('from the origin');\n".utf8)
        try temp.write(script, to: "site/app/extra.js")
        try temp.write(script, to: "site/coalesced.js")
        try temp.write(script, to: "site/blocked/x.js")
        try temp.write([UInt8](repeating: 0x61, count: 4096), to: "site/big.bin")
        // A file where the overlay needs a directory: /blocked/x.js is served but cannot be written through.
        try temp.write([], to: "store/cache/www.example.com/blocked")
        // At 60 bytes/s nginx sends a `/slow/` or `/stream/` head after about 3 s.
        let origin = try ResolverOrigin(root: temp.path + "/site", slowRate: "60")
        defer { origin.stop() }

        let (server, out, err) = try PkgctlProcess.start([
            "serve", "--root", store.layout.root, "--port", "0", "--metrics-port", "0",
            "--upstream", origin.baseURL, "--ca-file", origin.caFile,
        ])
        defer { if server.isRunning { server.terminate() } }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        let urls = banner.split(separator: " ").filter { $0.hasPrefix("http://") }.map(String.init)
        try #require(urls.count == 2 && urls[1].hasSuffix("/metrics"), "\(banner)")
        let base = String(urls[0].dropLast("/app/".count))
        let metricsURL = urls[1]

        var bytes: [String: Int] = [:]  // body bytes curl read, by "class source status"
        func get(_ path: String, _ arguments: [String] = [], as series: String) throws {
            let response = try HTTPExchange.curl(base + path, arguments)
            #expect("\(response.status)" == series.split(separator: " ").last!, "\(path): \(response.status)")
            bytes[series, default: 0] += response.body.count
        }
        func eventually(_ what: String, _ condition: (PrometheusScrape) -> Bool) throws -> PrometheusScrape {
            let deadline = Date().addingTimeInterval(15)
            while true {
                let text = try HTTPExchange.curl(metricsURL).body
                let scrape = try PrometheusScrape(text)
                if condition(scrape) { return scrape }
                try #require(Date() < deadline, "timed out waiting for \(what): \(String(decoding: text, as: UTF8.self))")
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        func waitForFile(_ path: String) throws {
            let deadline = Date().addingTimeInterval(15)
            while !FileManager.default.fileExists(atPath: path) {
                try #require(Date() < deadline, "\(path) was never written through")
                Thread.sleep(forTimeInterval: 0.05)
            }
        }

        for _ in 0..<3 { try get("/app/index.html", ["-H", "Accept: text/html"], as: "html package 200") }
        for _ in 0..<2 { try get("/app/nope.js", as: "script origin 404") }
        try get("/app/..%2f..%2fetc/passwd", ["--path-as-is"], as: "other pkgctl 400")
        try get("/app/extra.js", as: "script origin 200")
        try waitForFile(store.layout.overlayDirectory("demo", "1.0.0") + "/www.example.com/app/extra.js")
        try get("/app/extra.js", as: "script overlay 200")

        // Two misses of one URL before the origin's head: one fetch, one coalesced waiter.
        let pair = try (0..<2).map { _ in try Self.startCurl(base + "/slow/coalesced.js") }
        // Waited for until both tasks are counted, as a fetch or as a waiter, then checked how:
        // a task is in flight a moment before its fetch or its wait is counted (seen under
        // ThreadSanitizer: 3 fetches, then 4; and on a loaded machine: 4 fetches, no waiter yet).
        let waiting = try eventually("two tasks in flight, each counted") {
            $0.value("pkgctl_tasks_in_flight") == 2
                && ($0.value("pkgctl_origin_fetches_total", ["class": "script"]) ?? 0)
                + ($0.value("pkgctl_coalesced_waiters_total", ["class": "script"]) ?? 0) == 5
        }
        #expect(waiting.value("pkgctl_origin_fetches_total", ["class": "script"]) == 4)
        #expect(waiting.value("pkgctl_coalesced_waiters_total", ["class": "script"]) == 1)
        for (process, output) in pair {
            let answer = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(answer == "200 \(script.count)")
        }
        bytes["script origin 200", default: 0] += 2 * script.count
        try waitForFile(store.layout.overlay + "/www.example.com/slow/coalesced.js")

        try get("/blocked/x.js", as: "script origin 200")
        _ = try eventually("the failed write-through") {
            $0.value("pkgctl_overlay_commits_total", ["result": "failed"]) == 1
        }

        // A client that gives up before the origin's head: its task is stopped, its fetch cancelled.
        // (A client that closes the moment it has the last byte may also beat the resolver's own
        // end to the server, which is a stop too; so the stop is counted against what was before.)
        let stopsBefore = try #require(try PrometheusScrape(try HTTPExchange.curl(metricsURL).body)
            .value("pkgctl_task_stops_total"))
        #expect((try? HTTPExchange.curl(base + "/stream/big.bin", ["--max-time", "1"])) == nil)
        bytes["other - 0"] = 0
        let scrape = try eventually("the stop") {
            $0.value("pkgctl_task_stops_total") == stopsBefore + 1
                && $0.value("pkgctl_origin_fetch_duration_seconds_count", ["class": "other"]) == 1
        }

        // Requests, bytes and latency by class, source and status, as the access log has them.
        let requests = scrape.samples(named: "pkgctl_requests_total")
        #expect(Dictionary(uniqueKeysWithValues: requests.map { sample in
            (["class", "source", "status"].map { sample.labels[$0] ?? "?" }.joined(separator: " "), sample.value)
        }) == ["html package 200": 3, "script origin 404": 2, "other pkgctl 400": 1, "script origin 200": 4,
               "script overlay 200": 1, "other - 0": 1])
        for (series, count) in bytes {
            let parts = series.split(separator: " ").map(String.init)
            let labels = ["class": parts[0], "source": parts[1], "status": parts[2]]
            #expect(scrape.value("pkgctl_response_bytes_total", labels) == Double(count), "\(series)")
        }
        let durations = ["html package": 3.0, "script origin": 6, "other pkgctl": 1, "script overlay": 1, "other -": 1]
        #expect(scrape.samples(named: "pkgctl_request_duration_seconds_count").count == durations.count)
        for (series, count) in durations {
            let parts = series.split(separator: " ").map(String.init)
            let labels = ["class": parts[0], "source": parts[1]]
            #expect(scrape.value("pkgctl_request_duration_seconds_count", labels) == count, "\(series)")
            #expect(scrape.value("pkgctl_request_duration_seconds_bucket", labels.merging(["le": "+Inf"]) { $1 }) == count)
        }
        // Seconds: local files within 1 s, the coalesced pair waited over 1 s for the origin's head.
        #expect(scrape.value("pkgctl_request_duration_seconds_bucket",
                             ["class": "html", "source": "package", "le": "1.0"]) == 3)
        let fastOrigin = try #require(scrape.value("pkgctl_request_duration_seconds_bucket",
                                                   ["class": "script", "source": "origin", "le": "1.0"]))
        #expect(fastOrigin <= 4)

        // The resolver's side: fetches, their latency, coalescing, write-through, tasks.
        for (resourceClass, fetches) in ["html": 0.0, "script": 5, "style": 0, "image": 0, "other": 1] {
            let labels = ["class": resourceClass]
            #expect(scrape.value("pkgctl_origin_fetches_total", labels) == fetches, "\(resourceClass)")
            #expect(scrape.value("pkgctl_origin_fetch_duration_seconds_count", labels) == fetches, "\(resourceClass)")
            #expect(scrape.value("pkgctl_coalesced_waiters_total", labels) == (resourceClass == "script" ? 1 : 0))
        }
        #expect((scrape.value("pkgctl_origin_fetch_duration_seconds_bucket", ["class": "script", "le": "1.0"]) ?? 5) <= 4,
                "the slow fetch took over 1 s")
        #expect(scrape.value("pkgctl_overlay_commits_total", ["result": "ok"]) == 2)
        #expect(scrape.value("pkgctl_overlay_commits_total", ["result": "failed"]) == 1)
        #expect(scrape.value("pkgctl_tasks_in_flight") == 0)
        #expect(scrape.value("pkgctl_task_stops_total") == stopsBefore + 1)

        // The endpoint itself.
        let page = try HTTPExchange.curl(metricsURL)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        let metricsBase = String(metricsURL.dropLast("/metrics".count))
        #expect(try HTTPExchange.curl(metricsBase + "/other").status == 404)
        #expect(try HTTPExchange.curl(metricsURL, ["-X", "POST"]).status == 405)

        kill(server.processIdentifier, SIGINT)
        let log = String(decoding: out.fileHandleForReading.readDataToEndOfFile()
                         + err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(server.terminationStatus == 0, "serve did not stop cleanly on SIGINT: \(log)")
    }

    /// Starts `curl URL` in the background; its output is `STATUS BODY-BYTES`.
    private static func startCurl(_ url: String) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "20", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url]
        let output = ProcessLaunch.pipe()
        process.standardOutput = output
        try ProcessLaunch.run(process)
        return (process, output)
    }

    @Test func refusesAMetricsPortOutOfRange() throws {
        let result = try PkgctlProcess.run(["serve", "--root", "/nonexistent", "--metrics-port", "70000"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr == "pkgctl: --metrics-port must be 0-65535\n", "\(result.stderr)")
    }
}
