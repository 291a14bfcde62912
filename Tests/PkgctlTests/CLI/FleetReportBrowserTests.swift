import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

private let chromiumPath = "/usr/bin/chromium"

/// `fleet report --html` read back from a real browser: a simulated fleet of 1,000 devices
/// reports over eleven hours while `fleet watch` (in-process, on the simulated clock) takes
/// demo 1.1.0 from 1 % to everyone, halts a bad 1.2.0 at 5 % and moves 1.3.0 on; headless
/// Chromium opens the page from disk with the network off, and what it rendered (the release
/// rows, the adoption curves, the decision marks and steps) matches `fleet report --json`, the
/// fleet and the watch.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: chromiumPath), "needs chromium (scripts/setup --test)"))
struct FleetReportBrowserTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
    }

    /// 2026-11-25 08:00:00 UTC.
    private static let start = 1_795_593_600.0

    private var entry: ManifestEntry? {
        (try? PublishedManifest.read(out + "/manifest.json"))??.manifest.packages.first
    }

    /// Runs the fleet for eleven hours; returns the log, the watch's verdicts and where each device ends.
    private func simulate() throws -> (log: [String], verdicts: [RolloutWatch.Verdict], on: [String: String]) {
        let devices = (0..<1000).map { "device-\($0)" }
        var on: [String: String] = [:], tried: [String: Set<String>] = [:]
        var log: [String] = [], verdicts: [RolloutWatch.Verdict] = []
        let watch = RolloutWatch(outputDirectory: out, name: "demo", steps: [1, 5, 25, 100], interval: 3600,
                                 maxFailureRate: 0.05, minDevices: 3, maxNotFoundRate: 0.25)
        for hour in 0..<11 {
            // Each release once the one before is everywhere (or halted).
            switch (hour, verdicts.last?.decision, verdicts.last?.version) {
            case (0, _, _): try BundleFixtures.packDemo("1.0.0", into: out)
            case (_, .done, "1.0.0"): try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "1"])
            case (_, .done, "1.1.0") where entry?.revoked.isEmpty == true:
                try BundleFixtures.packDemo("1.2.0", into: out, from: "1.1.0", ["--rollout", "5"])
            case (_, .done, "1.1.0"): try BundleFixtures.packDemo("1.3.0", into: out, from: "1.0.0", ["--rollout", "25"])
            default: break
            }
            let current = try #require(entry)
            let percent = current.rollout?.percent ?? 100, salt = current.rollout?.salt ?? ""
            for (index, device) in devices.enumerated() {
                let time = Self.start + Double(hour * 3600 + index % 60 * 60)
                var report: OutcomeReport?
                if let running = on[device], current.revoked.contains(running) {
                    report = OutcomeReport(package: "demo", release: current.version, from: running, outcome: .downgraded,
                                           device: device, client: "0.1.0")
                    on[device] = current.version
                } else if on[device] != current.version, !tried[current.version, default: []].contains(device),
                          percent >= 100 || Rollout.bucket(deviceID: device, salt: salt) < percent {
                    tried[current.version, default: []].insert(device)
                    if current.version == "1.2.0", index % 5 < 3 {
                        report = OutcomeReport(package: "demo", release: "1.2.0", from: on[device], outcome: .rolledBack,
                                               cause: "exit", device: device, client: "0.1.0")
                    } else {
                        report = OutcomeReport(package: "demo", release: current.version, from: on[device],
                                               outcome: on[device] == nil ? .installed : .upgraded, device: device, client: "0.1.0")
                        on[device] = current.version
                    }
                } else if index % 10 == 0, let running = on[device] {
                    report = OutcomeReport(package: "demo", release: running, from: nil, outcome: .serving,
                                           notFound: index % 100 == 0 ? hour : 0, originFallbacks: 0, device: device,
                                           client: "0.1.0")
                }
                guard let report else { continue }
                log.append(Self.line(report, at: time))
            }
            var tally = FleetTally()
            var reader = ReportLogReader()
            for line in log { Array(line.utf8).withUnsafeBufferPointer { reader.read(line: $0, into: &tally) } }
            verdicts.append(try watch.run(tally, now: Date(timeIntervalSince1970: Self.start + Double(hour * 3600 + 3599))))
        }
        return (log, verdicts, on)
    }

    /// An nginx `combined` line for `report` sent at `time`.
    private static func line(_ report: OutcomeReport, at time: Double) -> String {
        let clock = Date(timeIntervalSince1970: time).formatted(.iso8601)   // 2026-11-25T08:00:00Z
        let parts = clock.split(whereSeparator: { "-T:Z".contains($0) })
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "10.1.2.3 - - [\(parts[2])/\(months[Int(parts[1])! - 1])/\(parts[0]):\(parts[3]):\(parts[4]):\(parts[5]) +0000] "
            + "\"GET /report/v1?\(report.query) HTTP/1.1\" 204 0 \"-\" \"pkgctl/0.1.0\""
    }

    @Test func theRenderedPageShowsWhatTheJSONReportAndTheWatchSay() throws {
        let (lines, verdicts, on) = try simulate()
        #expect(verdicts.contains { $0.decision == .halt && $0.version == "1.2.0" }, "\(verdicts.map(\.line))")
        #expect(verdicts.last?.version == "1.3.0")
        let log = try temp.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "access.log")
        let page = temp.path + "/report.html"
        let report = try PkgctlProcess.run(["fleet", "report", log, "--json", "--html", page, "--out-dir", out])
        #expect(report.status == 0, "\(report.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let releases = try #require(json["releases"] as? [[String: Any]])
        #expect(releases.map { $0["release"] as? String } == ["1.0.0", "1.1.0", "1.2.0", "1.3.0"])

        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(!html.contains("<script") && !html.contains(" src=") && !html.contains(" href="), "self-contained")
        let dom = try dumpDOM("file://" + page)
        #expect(dom.contains("<svg"), "\(dom.prefix(500))")

        // The release rows: every number of the JSON report.
        let rows = Self.elements("tr", with: "data-tried", in: dom)
        #expect(rows.count == releases.count)
        for (row, release) in zip(rows, releases) {
            #expect(row["data-package"] == "demo" && row["data-release"] == release["release"] as? String)
            let outcomes = release["outcomes"] as? [String: Int] ?? [:]
            for (attribute, value) in [("data-devices", release["devices"]), ("data-tried", release["tried"]),
                                       ("data-installs", release["installs"]), ("data-rolled-back", outcomes["rolledBack"] ?? 0),
                                       ("data-failed", outcomes["failed"] ?? 0), ("data-serving-devices", release["servingDevices"]),
                                       ("data-not-found", release["notFound"]), ("data-not-found-devices", release["notFoundDevices"]),
                                       ("data-origin-fallbacks", release["originFallbacks"])] {
                #expect(row[attribute].flatMap { Int($0) } == value as? Int, "\(attribute) of \(row)")
            }
            for (attribute, key) in [("data-failure-rate", "failureRate"), ("data-failure-rate-low", "failureRateLow"),
                                     ("data-failure-rate-high", "failureRateHigh"), ("data-not-found-rate", "notFoundRate")] {
                let shown = try #require(row[attribute].flatMap { Double($0) }, "\(attribute)")
                #expect(abs(shown - (release[key] as? Double ?? .nan)) < 1e-12, "\(attribute) of \(row)")
            }
        }
        let summary = try #require(Self.elements("p", with: "data-reports", in: dom).first)
        #expect(summary["data-reports"] == "\(json["reports"] as? Int ?? -1)" && summary["data-unreadable"] == "0")

        // The curves: eleven hours in 5-minute buckets, one a release, ending where the fleet ends;
        // the halted one at 0, dashed.
        let chart = try #require(Self.elements("svg", with: "data-chart", in: dom).first)
        #expect(chart["data-bucket-seconds"] == "300")
        let series = Self.elements("polyline", with: "data-series", in: dom)
        #expect(series.map { $0["data-release"] } == ["1.0.0", "1.1.0", "1.2.0", "1.3.0"])
        for line in series {
            let counts = (line["data-devices"] ?? "").split(separator: ",").compactMap { Int($0) }
            #expect(counts.count == 132)
            #expect(counts.last == on.values.count { $0 == line["data-release"] }, "\(line)")
            #expect(counts.allSatisfy { $0 <= 1000 })
        }
        #expect(series.first?["data-devices"]?.split(separator: ",")[11] == "1000", "all on 1.0.0 in the first hour")
        let first = (series.first?["data-devices"] ?? "").split(separator: ",").compactMap { Int($0) }
        #expect((first.last ?? 1000) < 1000 && first.suffix(60).contains { $0 < first.max() ?? 0 },
                "devices leave 1.0.0 as they upgrade: its curve falls")
        #expect(series[2]["class"]?.contains("halted") == true)
        // Every decision the watch took, marked in order (a repeated one that changed nothing once).
        let marks = Self.elements("g", with: "data-decision", in: dom)
        let decided = verdicts.enumerated().filter { index, verdict in
            index == 0 || ![.hold, .done, .idle, .undecided].contains(verdict.decision)
                || (verdicts[index - 1].decision, verdicts[index - 1].version, verdicts[index - 1].percentBefore,
                    verdicts[index - 1].percent) != (verdict.decision, verdict.version, verdict.percentBefore, verdict.percent)
        }.map(\.element)
        #expect(marks.map { $0["data-decision"] } == decided.map { $0.decision.rawValue })
        #expect(marks.map { $0["data-version"] } == decided.map(\.version))
        #expect(marks.map { $0["data-percent"].flatMap(Double.init) } == decided.map(\.percent))
        #expect(marks.count > 6 && marks.contains { $0["data-decision"] == "advance" })
        // The steps, against the threshold.
        let halt = try #require(Self.elements("tr", with: "data-step", in: dom).first { $0["data-decision"] == "halt" })
        let verdict = try #require(verdicts.first { $0.decision == .halt })
        #expect(halt["data-version"] == "1.2.0" && halt["data-percent"] == "5.0" && halt["data-threshold"] == "0.05")
        #expect(halt["data-devices"] == "\(verdict.evidence.devices)" && halt["data-failed-devices"] == "\(verdict.evidence.failedDevices)")
        #expect(Double(halt["data-failure-rate-low"] ?? "") ?? 0 > 0.05, "the whole interval above the threshold")

        // A screenshot: it renders, and the docs show it.
        let shot = temp.path + "/fleet-report.png"
        try runChromium(["--window-size=1200,900", "--screenshot=\(shot)", "file://" + page])
        let png = try #require(FileManager.default.contents(atPath: shot))
        #expect(png.starts(with: [0x89, 0x50, 0x4e, 0x47]) && png.count > 10_000)
        if let keep = ProcessInfo.processInfo.environment["PKGCTL_FLEET_REPORT_SCREENSHOT"] {
            try png.write(to: URL(fileURLWithPath: keep))
        }
    }

    /// The attributes of each `name` element carrying `attribute`, in document order.
    private static func elements(_ name: String, with attribute: String, in dom: String) -> [[String: String]] {
        let tag = try! NSRegularExpression(pattern: "<\(name)\\s[^>]*\(attribute)=[^>]*>")
        let pair = try! NSRegularExpression(pattern: #"([a-z-]+)="([^"]*)""#)
        return tag.matches(in: dom, range: NSRange(dom.startIndex..., in: dom)).map { match in
            let text = String(dom[Range(match.range, in: dom)!])
            var attributes: [String: String] = [:]
            for found in pair.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let value = String(text[Range(found.range(at: 2), in: text)!])
                attributes[String(text[Range(found.range(at: 1), in: text)!])] = value
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#39;", with: "'")
                    .replacingOccurrences(of: "&amp;", with: "&")
            }
            return attributes
        }
    }

    /// Loads `url` in headless Chromium, the network unreachable, and returns the rendered DOM.
    private func dumpDOM(_ url: String) throws -> String {
        try runChromium(["--dump-dom", url])
    }

    @discardableResult
    private func runChromium(_ arguments: [String]) throws -> String {
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: chromiumPath)
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--user-data-dir=\(temp.path)/chromium-\(UUID().uuidString)", "--hide-scrollbars",
                             "--proxy-server=socks5://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND"] + arguments
        let output = ProcessLaunch.pipe()
        browser.standardOutput = output
        browser.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(browser)
        let watchdog = DispatchWorkItem { if browser.isRunning { browser.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 90, execute: watchdog)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        watchdog.cancel()
        return text
    }
}
