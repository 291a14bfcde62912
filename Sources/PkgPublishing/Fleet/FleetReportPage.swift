import FoundationEssentials
import PkgCore

/// `pkgctl fleet report --html`: the fleet report as one self-contained HTML page (inline CSS
/// and SVG, no script, no font or image from anywhere), to read offline or attach to a ticket.
/// Per package: the adoption curve (``AdoptionChart``) with the rollout watch's decisions marked
/// on it, each release's numbers as the text and JSON report give them (failure rate and its
/// 95 % interval drawn against the watch's threshold when known, the 404s inside the app),
/// the rollout's steps and the decisions, when the watch's history is given.
///
/// Every string from a log or a state file is escaped (``Swift/String/escapedForHTML``). Rows
/// and marks carry `data-` attributes with the raw numbers, for checking the page by machine.
///
/// ```swift
/// var tally = FleetTally()
/// tally.timeline = FleetTimeline()
/// // ... read the logs ...
/// let html = FleetReportPage(tally: tally, decisions: try RolloutDecisionRecord.history(in: "out")).html
/// ```
public struct FleetReportPage: Sendable {
    /// The reports.
    public let tally: FleetTally
    /// What the publishing folder's manifest names now (empty: not given).
    public let published: [PublishedRelease]
    /// The watch's decisions per package (empty: not given).
    public let decisions: [String: [RolloutDecisionRecord]]
    /// When the page was made.
    public let generated: Date
    /// Devices on each release over time, in at most the `maxBuckets` given.
    public let adoption: FleetAdoption
    /// The numbers the page shows, as `fleet report` prints them.
    public let summary: FleetSummary

    /// A page for `tally` (whose ``FleetTally/timeline`` gives the curves, in at most
    /// `maxBuckets` buckets), the publishing folder's `published` releases and the watch's `decisions`.
    public init(tally: FleetTally, published: [PublishedRelease] = [], decisions: [String: [RolloutDecisionRecord]] = [:],
                generated: Date = Date(), maxBuckets: Int = 200) {
        self.tally = tally
        self.published = published
        self.decisions = decisions
        self.generated = generated
        adoption = (tally.timeline ?? FleetTimeline()).adoption(maxBuckets: maxBuckets)
        summary = FleetSummary(tally, adoption: adoption, published: published)
    }

    /// The page.
    public var html: String {
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <title>Fleet report</title>
            <style>\(Self.style)</style></head>
            <body><h1>Fleet report</h1>
            <p class="summary" data-reports="\(tally.reports)" data-unreadable="\(tally.unreadable)">\(tally.reports) reports, \
            \(tally.unreadable) unreadable report lines\(Self.skipped(summary.otherChannels)); made \
            \(AdoptionChart.clock(generated.timeIntervalSince1970)) UTC\
            \(adoption.buckets > 0 ? "; devices counted at the end of each \(Self.duration(adoption.width))" : "").</p>

            """
        if !published.isEmpty { page += FleetReleaseTable.publishedList(published) }
        if tally.channels.isEmpty {
            page += "<p class=\"note\">No outcome report in the logs\(Self.skipped(summary.otherChannels)): check that they "
                + "are the origin's access logs and that devices report.</p>\n"
        }
        for channel in tally.channels {
            page += #"<section data-channel="\#(channel.name.escapedForHTML)"><h2>Channel \#(channel.description.escapedForHTML)</h2>"#
            for package in summary.packages where package.channel == channel.name {
                page += packageSection(package, channel: channel, adoption: adoption, summary: summary)
            }
            page += "</section>\n"
        }
        return page + "</body></html>\n"
    }

    private func packageSection(_ package: FleetSummary.Package, channel: FleetChannel, adoption: FleetAdoption,
                                summary: FleetSummary) -> String {
        let releases = summary.releases(package.channel, package.package)
        let history = decisions[package.package] ?? []
        let halted = Set(history.filter { $0.decision == .halt }.map(\.version))
        var section = #"<div class="package" data-package="\#(package.package.escapedForHTML)" "#
            + #"data-devices-now="\#(package.devicesNow.map(String.init) ?? "")" "#
            + #"data-silent-since-newest="\#(package.silentSinceNewest.map(String.init) ?? "")">"#
            + "<h3>\(package.package.escapedForHTML)</h3>"
        let chart = AdoptionChart(channel: channel, package: package.package, adoption: adoption,
                                  series: adoption.series.filter { $0.channel == channel && $0.package == package.package },
                                  decisions: history, halted: halted)
        if chart.series.isEmpty, history.isEmpty {
            section += "<p class=\"note\">No report of this package moved a device at a time the logs give: no curve.</p>"
        } else {
            section += chart.svg + legend(chart.series, halted: halted, marked: chart.marked.count, of: history.count)
        }
        if let now = package.devicesNow, let silent = package.silentSinceNewest {
            section += "<p class=\"note\">\(now) devices on a release of \(package.package.escapedForHTML) at the end of "
                + "the logs, each counted once, where its last report put it; \(silent) of them, on older releases, "
                + "sent no report about \(package.newest.escapedForHTML), the newest (outside its rollout share, "
                + "offline, or not polled since).</p>"
        }
        section += FleetReleaseTable(releases: releases, history: history).html
        if !history.isEmpty { section += stepTable(history) + decisionList(history) }
        return section + "</div>"
    }

    private static func skipped(_ channels: [String]) -> String {
        channels.isEmpty ? "" : "; reports to " + channels.map { FleetChannel($0).description.escapedForHTML }
            .joined(separator: ", ") + " skipped"
    }

    private func legend(_ series: [FleetAdoption.Series], halted: Set<String>, marked: Int, of decisions: Int) -> String {
        "<p class=\"legend\">Devices on each release, each device on the one its last report put it on: " + series.enumerated().map { index, line in
            #"<span class="key c\#(index % AdoptionChart.colours)"></span>\#(line.release.escapedForHTML)"#
                + (halted.contains(line.release) ? " (halted)" : "")
        }.joined(separator: " ")
            + (decisions == 0 ? "" : #" <span class="key mark"></span>watch decisions"#
               + (marked < decisions ? " (\(marked) of \(decisions): those in the logs' time)" : ""))
            + "</p>"
    }

    /// Each step the watch saw, with the evidence and thresholds of its last decision there.
    private func stepTable(_ history: [RolloutDecisionRecord]) -> String {
        var steps: [RolloutDecisionRecord] = []
        for record in history {
            if let last = steps.last, last.version == record.version, last.percentBefore == record.percentBefore {
                steps[steps.count - 1] = record
            } else {
                steps.append(record)
            }
        }
        var table = "<h4>Rollout steps</h4><p class=\"note\">Each step's devices as the watch counted them at its last "
            + "decision there; the release table counts every report in the logs, later ones included.</p>"
            + "<table class=\"steps\"><tr><th>Release</th><th>Step</th><th>Devices tried at the decision</th>"
            + "<th>Failed</th><th>Failure rate 95 % interval</th><th>Threshold</th><th>Last decision</th></tr>"
        for step in steps {
            let interval = step.failureRateLow...step.failureRateHigh
            let rate = step.devices == 0 ? 0 : Double(step.failedDevices) / Double(step.devices)
            table += #"<tr data-step="" data-version="\#(step.version.escapedForHTML)" data-percent="\#(step.percentBefore)" "#
                + #"data-devices="\#(step.devices)" data-failed-devices="\#(step.failedDevices)" "#
                + #"data-failure-rate-low="\#(step.failureRateLow)" data-failure-rate-high="\#(step.failureRateHigh)" "#
                + #"data-threshold="\#(step.maxFailureRate)" data-decision="\#(step.decision.rawValue)">"#
                + "<th>\(step.version.escapedForHTML)</th><td>\(FleetSummary.percent(step.percentBefore / 100))</td>"
                + "<td>\(step.devices) (\(step.minDevices) needed)</td><td>\(step.failedDevices)</td>"
                + "<td>\(FleetSummary.percent(interval.lowerBound)) to \(FleetSummary.percent(interval.upperBound))"
                + FleetReleaseTable.intervalBar("step", rate: rate, interval, threshold: step.maxFailureRate) + "</td>"
                + "<td>\(FleetSummary.percent(step.maxFailureRate))"
                + (step.maxNotFoundRate.map { "; 404s \(FleetSummary.percent($0))" } ?? "") + "</td>"
                + "<td class=\"\(step.decision.rawValue)\">\(step.decision.rawValue)</td></tr>"
        }
        return table + "</table>"
    }

    private func decisionList(_ history: [RolloutDecisionRecord]) -> String {
        "<details><summary>The watch's decisions (\(history.count), newest last)</summary><table class=\"decisions\">"
            + history.map { record in
                "<tr><td>\(AdoptionChart.clock(record.time))"
                    + (record.lastTime.map { " to \(AdoptionChart.clock($0)) (\(record.runs ?? 1) runs)" } ?? "")
                    + "</td><td class=\"\(record.decision.rawValue)\">"
                    + "\(record.decision.rawValue)</td><td>\(record.line.escapedForHTML)</td></tr>"
            }.joined() + "</table></details>"
    }

    /// "1 h", "15 min", "1 d".
    private static func duration(_ seconds: Double) -> String {
        seconds >= 86_400 ? "\(DecimalText.tenths(seconds / 86_400, droppingZeroTenth: true)) d"
            : seconds >= 3600 ? "\(DecimalText.tenths(seconds / 3600, droppingZeroTenth: true)) h"
            : "\(DecimalText.tenths(seconds / 60, droppingZeroTenth: true)) min"
    }

    private static let style = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;max-width:1200px}\
        h1{font-size:22px}h2{font-size:18px;border-top:1px solid #ccc;padding-top:12px}h3{font-size:15px}\
        table{border-collapse:collapse;margin:8px 0}th,td{border-bottom:1px solid #e4e4e4;padding:4px 8px;text-align:left;\
        vertical-align:top}svg.chart{width:100%;max-width:960px;height:auto;background:#fafafa}\
        .grid{stroke:#e2e2e2}.axis{font-size:11px;fill:#666}.series{fill:none;stroke-width:2}\
        .series.halted{stroke-dasharray:6 3}.mark line{stroke-width:1;stroke-dasharray:2 2}\
        .mark.advance,.advance{stroke:#2a8a2a;fill:#2a8a2a;color:#2a8a2a}.mark.hold,.hold{stroke:#999;fill:#999;color:#777}\
        .mark.halt,.halt{stroke:#c62828;fill:#c62828;color:#c62828}.mark.undecided,.undecided{stroke:#e08a00;fill:#e08a00;\
        color:#b86e00}.mark.done,.done{stroke:#1e5bb8;fill:#1e5bb8;color:#1e5bb8}.mark.idle,.idle{stroke:#bbb;fill:#bbb}\
        .c0{stroke:#1f77b4;background:#1f77b4}.c1{stroke:#ff7f0e;background:#ff7f0e}.c2{stroke:#2ca02c;background:#2ca02c}\
        .c3{stroke:#d62728;background:#d62728}.c4{stroke:#9467bd;background:#9467bd}.c5{stroke:#8c564b;background:#8c564b}\
        .c6{stroke:#e377c2;background:#e377c2}.c7{stroke:#7f7f7f;background:#7f7f7f}\
        .key{display:inline-block;width:14px;height:4px;margin:0 4px 3px 10px}.key.mark{background:#999}\
        svg.interval{vertical-align:middle;margin-left:6px}.interval rect{fill:#9ecae1}.interval circle{fill:#08519c}\
        .interval .scale{stroke:#ccc}.interval .threshold{stroke:#c62828;stroke-width:2}.interval text{font-size:10px;fill:#666}
        """
}
