import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `fleet report` and `fleet watch` over logs with two channels: every device counted once,
/// where its last report put it, per channel; the text, `--json` and `--html` giving the same
/// numbers; and a watch over production that never counts a staging device.
@Suite struct FleetChannelCommandTests {
    let temp: TemporaryDirectory
    let out: String

    init() throws {
        temp = try TemporaryDirectory()
        out = try temp.makeDirectory("out")
    }

    /// An nginx `combined` line: `device` reports `outcome` of `release` to `channel`, `minute` minutes after 10:00.
    private static func line(_ channel: String, _ minute: Int, _ release: String, _ outcome: OutcomeReport.Outcome,
                             device: String, from: String? = nil, cause: String? = nil, error: String? = nil) -> String {
        let report = OutcomeReport(package: "demo", release: release, from: from, outcome: outcome, cause: cause,
                                   errorCode: error,
                                   device: DevicePseudonym.make(deviceID: device, package: "demo", release: release),
                                   client: "0.1.0")
        let clock = String(format: "25/Nov/2026:10:%02d:00 +0000", minute)
        return "10.0.0.1 - - [\(clock)] \"GET \(channel)/report/v1?\(report.query) HTTP/1.1\" 204 0 \"-\" \"pkgctl/0.1.0\""
    }

    /// Production: four devices on 1.0.0; p1 upgrades and later rolls 1.1.0 back (a killed run's
    /// trial); p2 fails the download, then upgrades (a cancelled failure); p3's health check fails
    /// in the run that tried it; p4 never reports again. Staging: s1 goes 1.1.0 then 1.2.0.
    private static let log = [
        line("/prod", 0, "1.0.0", .installed, device: "p1"), line("/prod", 0, "1.0.0", .installed, device: "p2"),
        line("/prod", 0, "1.0.0", .installed, device: "p3"), line("/prod", 0, "1.0.0", .installed, device: "p4"),
        line("/prod", 10, "1.1.0", .upgraded, device: "p1", from: "1.0.0"),
        line("/staging", 10, "1.1.0", .installed, device: "s1"),
        line("/prod", 20, "1.1.0", .failed, device: "p2", from: "1.0.0", error: "checksumMismatch"),
        line("/staging", 20, "1.2.0", .upgraded, device: "s1", from: "1.1.0"),
        line("/prod", 30, "1.1.0", .upgraded, device: "p2", from: "1.0.0"),
        line("/prod", 40, "1.1.0", .rolledBack, device: "p1", from: "1.0.0", cause: "stopped"),
        line("/prod", 50, "1.1.0", .rolledBack, device: "p3", from: "1.0.0", cause: "exit"),
    ]

    /// Per `channel release`: devices on it now, reporting, failed (their last word a rollback or
    /// a failure), failures cancelled by a later install.
    private static let expected: [String: [Int]] = [
        "prod 1.0.0": [3, 4, 0, 0], "prod 1.1.0": [1, 3, 2, 1], "staging 1.1.0": [0, 1, 0, 0], "staging 1.2.0": [1, 1, 0, 0],
    ]

    @Test func textJSONAndPageGiveTheSameCountsPerChannel() throws {
        try BundleFixtures.packDemo("1.0.0", into: out)
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "50"])
        let log = try temp.write(Array((Self.log.joined(separator: "\n") + "\n").utf8), to: "access.log")
        let page = temp.path + "/fleet.html"

        let json = try PkgctlProcess.run(["fleet", "report", log, "--json", "--html", page, "--out-dir", out])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        var fromJSON: [String: [Int]] = [:]
        for release in try #require(object["releases"] as? [[String: Any]]) {
            let key = "\(release["channel"] as? String ?? "?") \(release["release"] as? String ?? "?")"
            let tried = release["tried"] as? Int ?? 0, rate = release["failureRate"] as? Double ?? 0
            fromJSON[key] = [release["devicesNow"] as? Int ?? -1, release["devices"] as? Int ?? -1,
                             Int((rate * Double(tried)).rounded()), release["failuresCancelled"] as? Int ?? -1]
        }
        #expect(fromJSON == Self.expected)
        let packages = try #require(object["packages"] as? [[String: Any]])
        #expect(packages.map { "\($0["channel"] ?? "") \($0["devicesNow"] ?? "") \($0["silentSinceNewest"] ?? "")" }
                    == ["prod 4 1", "staging 1 0"])
        let published = try #require((object["published"] as? [[String: Any]])?.first)
        #expect(published["release"] as? String == "1.1.0" && published["rolloutPercent"] as? Double == 50
                    && published["previous"] as? String == "1.0.0" && published["namedSince"] is Double)

        let text = try PkgctlProcess.run(["fleet", "report", log, "--out-dir", out])
        #expect(text.status == 0, "\(text.stderr)")
        var fromText: [String: [Int]] = [:], channel = ""
        for line in text.stdout.split(separator: "\n").map(String.init) {
            if line.hasPrefix("channel /") { channel = String(line.dropFirst(9).dropLast()) }
            guard let match = line.firstMatch(of: #/^demo (\S+): (\d+) devices, .*failure rate ([0-9.]+) % of (\d+) that tried it.*; (\d+) on it now$/#)
            else { continue }
            let cancelled = line.firstMatch(of: #/not counting (\d+) that failed it/#).map { Int($0.1)! } ?? 0
            let failed = Int((Double(match.3)! / 100 * Double(match.4)!).rounded())
            fromText["\(channel) \(match.1)"] = [Int(match.5)!, Int(match.2)!, failed, cancelled]
        }
        #expect(fromText == Self.expected, "\(text.stdout)")
        #expect(text.stdout.contains("demo: 4 devices on its releases now, each where its last report put it; "
                                     + "1 on older releases sent no report about 1.1.0, the newest"))
        #expect(text.stdout.contains("published in \(out): demo 1.1.0 to 50 % of devices, the others to 1.0.0; "
                                     + "named by the manifest since "), "\(text.stdout)")

        let html = try String(contentsOfFile: page, encoding: .utf8)
        var fromPage: [String: [Int]] = [:]
        for row in html.matches(of: #/<tr data-channel="([^"]*)" data-package="demo" data-release="([^"]+)"[^>]*>/#) {
            func number(_ name: String) -> Int {
                Int(row.0.firstMatch(of: try! Regex("\(name)=\"([0-9]+)\""))?.output[1].substring ?? "") ?? -1
            }
            let tried = number("data-tried")
            let rate = Double(row.0.firstMatch(of: #/data-failure-rate="([0-9.e-]+)"/#)?.1 ?? "") ?? -1
            fromPage["\(row.1) \(row.2)"] = [number("data-devices-now"), number("data-devices"),
                                             Int((rate * Double(tried)).rounded()), number("data-failures-cancelled")]
        }
        #expect(fromPage == Self.expected)
        #expect(html.contains(#"<section data-channel="prod"><h2>Channel /prod</h2>"#)
                    && html.contains(#"data-devices-now="4" data-silent-since-newest="1""#))
        #expect(html.contains("1 of them installed it on a later run: not counted in the failure rate"))
        #expect(html.contains(#"data-rollout-percent="50.0""#) && !html.contains("<th>Other reports</th>"))
    }

    @Test func aWatchOverProductionNeverCountsAStagingDevice() throws {
        try BundleFixtures.packDemo("1.0.0", into: out)
        try BundleFixtures.packDemo("1.1.0", into: out, ["--rollout", "5"])
        // One production device took 1.1.0; three staging devices rolled it back.
        let lines = [Self.line("/prod", 0, "1.1.0", .upgraded, device: "p1", from: "1.0.0")]
            + (1...3).map { Self.line("/staging", $0, "1.1.0", .rolledBack, device: "s\($0)", from: "1.0.0", cause: "exit") }
        let log = try temp.write(Array((lines.joined(separator: "\n") + "\n").utf8), to: "access.log")
        func watch(_ extra: [String]) throws -> PkgctlProcess.Result {
            try PkgctlProcess.run(["fleet", "watch", out, "demo", "--log", log, "--interval", "0",
                                   "--max-failure-rate", "10", "--min-devices", "3", "--dry-run"] + extra)
        }
        let prod = try watch(["--channel", "prod"])
        #expect(prod.status == 0 && prod.stdout.contains("hold: 1 of 3 devices tried it"), "\(prod.stdout)\(prod.stderr)")
        let staging = try watch(["--channel", "/staging/"])
        #expect(staging.status == 2 && staging.stdout.contains("halt"), "\(staging.stdout)")
        let mixed = try watch([])
        #expect(mixed.status == 3 && mixed.stdout.contains("the logs hold reports to the channels /prod, /staging; pass --channel"),
                "\(mixed.stdout)")
        let none = try watch(["--channel", "beta"])
        #expect(none.status == 3 && none.stdout.contains("no outcome report to channel /beta (skipped the reports to /prod, /staging)"),
                "\(none.stdout)")
    }
}
