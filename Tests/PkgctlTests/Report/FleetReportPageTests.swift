import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The pieces under `fleet report --html`: report times in each log layout, the adoption
/// curve, the watch's history beside its step state, and a page no log can inject into.
@Suite struct FleetReportPageTests {
    private static func tally(_ lines: [String]) -> FleetTally {
        var tally = FleetTally()
        tally.timeline = FleetTimeline()
        var reader = ReportLogReader()
        for line in lines {
            Array(line.utf8).withUnsafeBufferPointer { reader.read(line: $0, into: &tally) }
        }
        return tally
    }

    /// A report as a device sends it: its pseudonym differs from one release to the next.
    private static func query(_ release: String, _ outcome: OutcomeReport.Outcome, device: String, from: String? = nil,
                              cause: String? = nil) -> String {
        OutcomeReport(package: "demo", release: release, from: from, outcome: outcome, cause: cause,
                      device: DevicePseudonym.make(deviceID: device, package: "demo", release: release), client: "0.1.0").query
    }

    /// 2026-11-25 17:00:00 UTC.
    private static let five = 1_795_626_000.0

    @Test func eachLayoutGivesTheReportsTime() throws {
        let query = Self.query("1.0.0", .installed, device: "d1")
        let nginx = Self.tally([#"10.0.0.1 - - [25/Nov/2026:18:30:00 +0130] "GET /report/v1?\#(query) HTTP/1.1" 204 0 "-" "-""#])
        let cloudFront = Self.tally([
            "#Version: 1.0", "#Fields: date time x-edge-location cs-method cs-uri-stem cs-uri-query",
            "2026-11-25\t17:00:00\tFRA56\tGET\t/report/v1\t" + query.replacingOccurrences(of: "%", with: "%25"),
        ])
        let logpush = [#"{"EdgeStartTimestamp":"2026-11-25T17:00:00Z","ClientRequestURI":"/report/v1?\#(query)"}"#,
                       #"{"EdgeStartTimestamp":"2026-11-25T18:00:00.123+01:00","ClientRequestURI":"/report/v1?\#(query)"}"#,
                       #"{"EdgeStartTimestamp":1795626000,"ClientRequestURI":"/report/v1?\#(query)"}"#,
                       #"{"EdgeStartTimestamp":1795626000000000000,"ClientRequestURI":"/report/v1?\#(query)"}"#]
        for tally in [nginx, cloudFront] + logpush.map({ Self.tally([$0]) }) {
            #expect(tally.reports == 1)
            let start = try #require(tally.timeline?.first)
            #expect(abs(start - Self.five) < 1, "\(start)")
        }
        // A line without a time counts, but draws no curve.
        let timeless = FleetReportPage(tally: Self.tally([#"x "GET /report/v1?\#(query) HTTP/1.1""#])).html
        #expect(timeless.contains(#"data-devices="1""#) && !timeless.contains("data-chart=") && timeless.contains("no curve"))
        // Without a timeline the times are not read, and the counts are the same.
        var plain = FleetTally()
        plain.add(line: Array(#"x [25/Nov/2026:17:00:00 +0000] "GET /report/v1?\#(query) HTTP/1.1""#.utf8))
        #expect(plain.reports == 1 && plain.timeline == nil)
    }

    @Test func devicesMoveBetweenReleasesAndBackAfterARollback() throws {
        func line(_ hour: Int, _ query: String) -> String {
            #"x - - [25/Nov/2026:\#(String(format: "%02d", 17 + hour)):00:00 +0000] "GET /report/v1?\#(query) HTTP/1.1" 204"#
        }
        let tally = Self.tally([
            line(0, Self.query("1.0.0", .installed, device: "a")), line(0, Self.query("1.0.0", .installed, device: "b")),
            line(1, Self.query("1.1.0", .upgraded, device: "a", from: "1.0.0")),
            line(2, Self.query("1.1.0", .upgraded, device: "b", from: "1.0.0")),
            line(3, Self.query("1.1.0", .rolledBack, device: "b", from: "1.0.0", cause: "stopped")),
            // A rollback in the run that tried it: the device never left 1.0.0.
            line(3, Self.query("1.1.0", .rolledBack, device: "c", from: "1.0.0", cause: "exit")),
            line(4, Self.query("1.1.0", .serving, device: "a")),
        ])
        let adoption = try #require(tally.timeline).adoption()
        // Four hours in 5-minute buckets; a device counts where it is at a bucket's end.
        #expect(adoption.width == 300 && adoption.buckets == 49 && adoption.start == Self.five)
        #expect(adoption.series.map(\.release) == ["1.0.0", "1.1.0"])
        #expect(adoption.series.map { line in [0, 12, 24, 36, 48].map { line.devices[$0] } } == [[2, 1, 0, 1, 1], [0, 1, 2, 1, 1]])
        // A long log is drawn in at most 200 buckets of a round width.
        let long = Self.tally((0..<1000).map { hour in
            #"{"EdgeStartTimestamp":\#(Int(Self.five) + hour * 3600),"ClientRequestURI":"/report/v1?"#
                + Self.query("1.0.0", .serving, device: "d\(hour)") + #""}"#
        })
        let curve = try #require(long.timeline).adoption()
        #expect(curve.buckets <= 200 && curve.width == 21_600, "\(curve.width) \(curve.buckets)")
    }

    @Test func devicesOnAReleaseBeforeTheLogsBeginAreCountedWhenTheyLeave() throws {
        func line(_ hour: Int, _ query: String) -> String {
            #"x - - [25/Nov/2026:\#(String(format: "%02d", 17 + hour)):00:00 +0000] "GET /report/v1?\#(query) HTTP/1.1" 204"#
        }
        // Two devices were on 1.0.0 before the log and leave it (one reports twice); a third
        // arrives in between. The log cannot tell the third from the second, so 1.0.0 starts
        // with the fewest devices the moves allow: 1.
        let tally = Self.tally([
            line(0, Self.query("1.1.0", .upgraded, device: "a", from: "1.0.0")),
            line(1, Self.query("1.0.0", .installed, device: "n")),
            line(2, Self.query("1.1.0", .upgraded, device: "b", from: "1.0.0")),
            line(3, Self.query("1.1.0", .upgraded, device: "b", from: "1.0.0")),
        ])
        let adoption = try #require(tally.timeline).adoption()
        let old = try #require(adoption.series(FleetChannel("/"), "demo", "1.0.0"))
        let new = try #require(adoption.series(FleetChannel("/"), "demo", "1.1.0"))
        // 1.0.0 starts at the 1 device the log shows leaving before any arrived, never below 0.
        let hours = [0, 1, 2, 3].map { min(old.devices.count - 1, Int(Double($0) * 3600 / adoption.width)) }
        #expect(hours.map { old.devices[$0] } == [0, 1, 0, 0] && old.devices.allSatisfy { $0 >= 0 }, "\(old.devices)")
        #expect(new.now == 2 && old.now == 0)
    }

    @Test func eachChannelIsCountedApart() throws {
        let upgrade = Self.query("1.1.0", .upgraded, device: "a", from: "1.0.0")
        let tally = Self.tally([
            #"x - - [25/Nov/2026:17:00:00 +0000] "GET /prod/report/v1?\#(upgrade) HTTP/1.1" 204"#,
            #"x - - [25/Nov/2026:17:00:00 +0000] "GET https://cdn.example/apps/staging/report/v1?\#(upgrade) HTTP/1.1" 204"#,
            "#Fields: date time cs-uri-stem cs-uri-query",
            "2026-11-25\t17:00:00\t/staging/report/v1\t" + Self.query("1.1.0", .failed, device: "b", from: "1.0.0"),
            #"{"EdgeStartTimestamp":1795626000,"ClientRequestURI":"/report/v1?\#(upgrade)"}"#,
        ])
        #expect(tally.channels.map(\.description) == ["/", "/apps/staging", "/prod", "/staging"])
        #expect(tally.release("demo", "1.1.0") == nil, "several channels: none is the one")
        #expect(tally.release("demo", "1.1.0", channel: FleetChannel("staging"))?.outcomes[.failed]?.count == 1)
        var prod = FleetTally()
        prod.channel = FleetChannel("prod")
        for line in [#"x "GET /prod/report/v1?\#(upgrade) HTTP/1.1""#, #"x "GET /staging/report/v1?\#(upgrade) HTTP/1.1""#] {
            prod.add(line: Array(line.utf8))
        }
        #expect(prod.reports == 1 && prod.otherChannels == [FleetChannel("staging")])
        #expect(prod.release("demo", "1.1.0")?.installs == 1)
    }

    @Test func hostileNamesAreTextOnly() throws {
        let package = #"<script>alert(1)</script><img/src=x/onerror=alert(2)>"#
        let release = #""><svg/onload=alert(3)>&amp;'"#
        let query = OutcomeReport(package: package, release: release, from: nil, outcome: .rolledBack, cause: "<b>exit</b>",
                                  device: "d1", client: "0.1.0").query
        let tally = Self.tally([#"x [25/Nov/2026:17:00:00 +0000] "GET /report/v1?\#(query) HTTP/1.1" 204"#])
        #expect(tally.releases.map(\.package) == [package])
        var record = RolloutDecisionRecord(
            RolloutWatch.Verdict(decision: .halt, version: release, percentBefore: 5, percent: 100,
                                 evidence: RolloutEvidence(tally.releases.first, maxFailureRate: 0.05, maxNotFoundRate: nil),
                                 holds: 0, line: "halt: </title><script>alert(4)</script>"),
            time: Date(timeIntervalSince1970: Self.five), minDevices: 1)
        record.line += "\u{1}"
        let html = FleetReportPage(tally: tally, decisions: [package: [record]]).html
        for tag in ["<script", "<img", "<svg/onload", "<b>", "</title><script", "\u{1}"] {
            #expect(!html.contains(tag), "\(tag)")
        }
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img/src=x/onerror=alert(2)&gt;"))
        #expect(html.contains("&quot;&gt;&lt;svg/onload=alert(3)&gt;&amp;amp;&#39;"))
        #expect(html.contains("&lt;b&gt;exit&lt;/b&gt; 1"))
        #expect(!html.contains("http://") || html.components(separatedBy: "http://").count - 1
                == html.components(separatedBy: "http://www.w3.org/2000/svg").count - 1, "nothing is fetched")
    }

    @Test func theStateFileKeepsItsStepAndABoundedHistory() throws {
        let temp = try TemporaryDirectory()
        // A file as the watch wrote it before the history.
        let path = try temp.write(Array(#"{"version":"1.1.0","percent":5,"since":1000,"holds":2,"lastHold":1500}"#.utf8),
                                  to: ".pkgctl-watch-demo.json")
        let old = try RolloutStepState.read(path, version: "1.1.0", percent: 5, now: Date())
        #expect(old.since == 1000 && old.holds == 2 && old.lastHold == 1500)
        func record(_ decision: RolloutWatch.Decision, at second: Int) -> RolloutDecisionRecord {
            RolloutDecisionRecord(RolloutWatch.Verdict(decision: decision, version: "1.1.0", percentBefore: 5, percent: 5,
                                                       evidence: RolloutEvidence(nil, maxFailureRate: 0.1, maxNotFoundRate: 0.02),
                                                       holds: 2, line: "\(decision) \(second)"),
                                  time: Date(timeIntervalSince1970: Double(second)), minDevices: 3)
        }
        // Repeated holds are one record: first time, last time, runs, last line.
        for second in 0..<3 { try RolloutWatchFile.append(record(.hold, at: second), to: path) }
        let held = try #require(try RolloutWatchFile.read(path).history.first)
        #expect(held.time == 0 && held.lastTime == 2 && held.runs == 3 && held.line == "hold 2")
        // Decisions that change something each count; the oldest go past the limit.
        for second in 3..<(RolloutDecisionRecord.limit + 6) { try RolloutWatchFile.append(record(.advance, at: second), to: path) }
        let file = try RolloutWatchFile.read(path)
        #expect(file.history.count == RolloutDecisionRecord.limit && file.history.first?.time == 6)
        #expect(file.history.last?.maxNotFoundRate == 0.02 && file.history.last?.minDevices == 3)
        let kept = try RolloutStepState.read(path, version: "1.1.0", percent: 5, now: Date())
        #expect(kept.since == 1000 && kept.holds == 2)
        try RolloutStepState(version: "1.1.0", percent: 25, since: 2000).write(to: path)
        #expect(try RolloutWatchFile.read(path).history.count == RolloutDecisionRecord.limit)
        #expect(try RolloutStepState.read(path, version: "1.1.0", percent: 25, now: Date()).since == 2000)
        // A history without a step (a halt on the first run) reads too; the name comes from the file.
        _ = try temp.write(Array(#"{"history":[]}"#.utf8), to: ".pkgctl-watch-other@0a1b2c.json")
        let history = try RolloutDecisionRecord.history(in: temp.path)
        #expect(history.keys.sorted() == ["demo", "other"] && history["demo"]?.count == RolloutDecisionRecord.limit)
    }
}
