import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `fleet report --html` from the command line: a month of reports costs the memory of an
/// hour's, the numbers on stdout do not change, and the page shows the decisions `fleet watch`
/// recorded (a dry run records none).
@Suite struct FleetReportHTMLCommandTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
    }

    /// An nginx `combined` line for `report`, `seconds` after 2026-11-01 00:00 UTC (under a day).
    private static func line(_ report: OutcomeReport, day: Int = 1, seconds: Int = 0) -> String {
        let clock = String(format: "%02d/Nov/2026:%02d:%02d:%02d", day, seconds / 3600, seconds / 60 % 60, seconds % 60)
        return "10.0.0.1 - - [\(clock) +0000] \"GET /report/v1?\(report.query) HTTP/1.1\" 204 0 \"-\" \"-\""
    }

    /// An nginx `combined` line for `report` sent at `date`.
    private static func line(_ report: OutcomeReport, at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
        return "10.0.0.1 - - [\(formatter.string(from: date))] \"GET /report/v1?\(report.query) HTTP/1.1\" 204 0 \"-\" \"-\""
    }

    private static func report(_ release: String, _ outcome: OutcomeReport.Outcome, device: String) -> OutcomeReport {
        OutcomeReport(package: "demo", release: release, from: nil, outcome: outcome, cause: outcome == .rolledBack ? "exit" : nil,
                      device: device, client: "0.1.0")
    }

    @Test func aMonthOfReportsCostsTheMemoryOfADays() throws {
        func log(_ name: String, lines count: Int, days: Int) throws -> String {
            let path = temp.path + "/" + name
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            defer { try? file.close() }
            var text = ""
            for index in 0..<count {
                let at = index * days * 86_400 / count
                text += Self.line(Self.report("1.\(index * 4 / count).0", index % 3 == 0 ? .upgraded : .serving,
                                              device: "device-\(index % 500)"), day: 1 + at / 86_400, seconds: at % 86_400) + "\n"
                if text.utf8.count > 1 << 20 {
                    file.write(Data(text.utf8))
                    text = ""
                }
            }
            file.write(Data(text.utf8))
            return path
        }
        // Without an uninstrumented build the memory bound is not checked (below): a tenth of the month reads the same page.
        let day = try log("day.log", lines: 10_000, days: 1)
        let month = try log("month.log", lines: UninstrumentedBuild.pkgctl == nil ? 30_000 : 300_000, days: 29)
        let short = try PkgctlProcess.runMeasuringMemory(["fleet", "report", day, "--html", temp.path + "/day.html"])
        let long = try PkgctlProcess.runMeasuringMemory(["fleet", "report", month, "--html", temp.path + "/month.html"])
        #expect(short.result.status == 0 && long.result.status == 0, "\(long.result.stderr)")
        if let longPeak = long.peakKB, let shortPeak = short.peakKB {
            #expect(longPeak <= shortPeak + 8 * 1024, "\(longPeak) KiB vs \(shortPeak) KiB")
        } else {
            print("skipped: the peak-memory bound: \(UninstrumentedBuild.absence)")
        }
        let text = try PkgctlProcess.run(["fleet", "report", month], executable: UninstrumentedBuild.pkgctlOrThisBuild)
        #expect(text.stdout == long.result.stdout, "the page changes no number")
        let page = try String(contentsOfFile: temp.path + "/month.html", encoding: .utf8)
        #expect(page.contains(#"data-bucket-seconds="21600""#), "29 days in 6-hour buckets")
        #expect(page.components(separatedBy: "<polyline").count - 1 == 4)
    }

    @Test func theWatchRecordsItsDecisionsAndThePageMarksThem() throws {
        try BundleFixtures.packDemo("1.0.0", into: out)
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "5"])
        func watch(_ reports: [OutcomeReport], _ extra: [String] = []) throws -> PkgctlProcess.Result {
            // Sent in the last minutes: the watch, run now, decides at the end of the logs' time.
            let lines = reports.enumerated().map { Self.line($1, at: Date(timeIntervalSinceNow: Double($0 * 60 - 180))) }
            let log = try temp.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "access.log")
            return try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", log, "--interval", "0",
                                          "--max-failure-rate", "10", "--min-devices", "3"] + extra)
        }
        let state = out + "/.pkgctl-watch-demo.json"
        let one = [Self.report("1.1.0", .upgraded, device: "a")]
        #expect(try watch(one, ["--dry-run"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: state), "a dry run records nothing")
        for _ in 0..<2 { #expect(try watch(one).stdout.contains("hold: 1 of 3 devices tried it")) }
        let three = one + [Self.report("1.1.0", .rolledBack, device: "b"), Self.report("1.1.0", .rolledBack, device: "c")]
        #expect(try watch(three).status == 2)
        let history = try #require(try RolloutDecisionRecord.history(in: out)["demo"])
        #expect(history.map(\.decision) == [.hold, .halt] && history.first?.runs == 2)
        #expect(history.last?.failedDevices == 2 && history.last?.maxFailureRate == 0.1 && history.last?.minDevices == 3)

        let page = temp.path + "/report.html"
        let report = try PkgctlProcess.run(["fleet", "report", temp.path + "/access.log", "--html", page, "--out-dir", out])
        #expect(report.status == 0, "\(report.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<g class=\"mark ").count - 1 == 2)
        #expect(html.contains(#"data-decision="halt" data-version="1.1.0" data-percent-before="5.0" data-percent="100.0""#))
        #expect(html.contains(#"data-step="" data-version="1.1.0" data-percent="5.0" data-devices="3" data-failed-devices="2""#))
        #expect(html.contains(#"data-interval="step" data-low="#) && html.contains(#"data-threshold="0.1""#))
        // Decisions outside the logs' time are listed, not marked.
        let old = try temp.write(Array((Self.line(one[0], day: 2) + "\n").utf8), to: "old.log")
        #expect(try PkgctlProcess.run(["fleet", "report", old, "--html", page, "--out-dir", out]).status == 0)
        let listed = try String(contentsOfFile: page, encoding: .utf8)
        #expect(!listed.contains("<g class=\"mark ") && listed.contains("(0 of 2: those in the logs' time)"))
        #expect(listed.contains("The watch's decisions (2, newest last)"))

        let missing = try PkgctlProcess.run(["fleet", "report", temp.path + "/access.log", "--html", page, "--out-dir", out + "/nope"])
        #expect(missing.status == 1 && missing.stderr.contains("nope is not a directory"), "\(missing.stderr)")
        // Without --html, the text says what the folder's manifest names now.
        let alone = try PkgctlProcess.run(["fleet", "report", temp.path + "/access.log", "--out-dir", out])
        #expect(alone.status == 0 && alone.stdout.contains("published in \(out): demo 1."), "\(alone.stdout)\(alone.stderr)")
    }
}
