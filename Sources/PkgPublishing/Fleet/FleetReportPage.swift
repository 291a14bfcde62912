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
    public var tally: FleetTally
    /// The watch's decisions per package (empty: not given).
    public var decisions: [String: [RolloutDecisionRecord]]
    /// When the page was made.
    public var generated: Date
    /// Most buckets of the adoption curve.
    public var maxBuckets: Int

    /// A page for `tally` (whose ``FleetTally/timeline`` gives the curves) and the watch's `decisions`.
    public init(tally: FleetTally, decisions: [String: [RolloutDecisionRecord]] = [:], generated: Date = Date(),
                maxBuckets: Int = 200) {
        self.tally = tally
        self.decisions = decisions
        self.generated = generated
        self.maxBuckets = maxBuckets
    }

    /// The page.
    public var html: String {
        let adoption = (tally.timeline ?? FleetTimeline()).adoption(maxBuckets: maxBuckets)
        let packages = tally.releases.map(\.package).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        var page = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <title>Fleet report</title>
            <style>\(Self.style)</style></head>
            <body><h1>Fleet report</h1>
            <p class="summary" data-reports="\(tally.reports)" data-unreadable="\(tally.unreadable)">\(tally.reports) reports, \
            \(tally.unreadable) unreadable report lines; made \(AdoptionChart.clock(generated.timeIntervalSince1970)) UTC\
            \(adoption.buckets > 0 ? "; devices counted at the end of each \(Self.duration(adoption.width))" : "").</p>

            """
        for package in packages {
            let releases = tally.releases.filter { $0.package == package }
            let history = decisions[package] ?? []
            let halted = Set(history.filter { $0.decision == .halt }.map(\.version))
            page += #"<section data-package="\#(package.escapedForHTML)"><h2>\#(package.escapedForHTML)</h2>"#
            let chart = AdoptionChart(package: package, adoption: adoption,
                                      series: adoption.series.filter { $0.package == package }, decisions: history, halted: halted)
            if chart.series.isEmpty, history.isEmpty {
                page += "<p class=\"note\">No report of this package carries a time the logs give: no curve.</p>"
            } else {
                page += chart.svg + legend(chart.series, halted: halted, marked: chart.marked.count, of: history.count)
            }
            page += releaseTable(releases, history: history)
            if !history.isEmpty { page += stepTable(history) + decisionList(history) }
            page += "</section>\n"
        }
        return page + "</body></html>\n"
    }

    private func legend(_ series: [FleetAdoption.Series], halted: Set<String>, marked: Int, of decisions: Int) -> String {
        "<p class=\"legend\">" + series.enumerated().map { index, line in
            #"<span class="key c\#(index % AdoptionChart.colours)"></span>\#(line.release.escapedForHTML)"#
                + (halted.contains(line.release) ? " (halted)" : "")
        }.joined(separator: " ")
            + (decisions == 0 ? "" : #" <span class="key mark"></span>watch decisions"#
               + (marked < decisions ? " (\(marked) of \(decisions): those in the logs' time)" : ""))
            + "</p>"
    }

    private func releaseTable(_ releases: [FleetTally.Release], history: [RolloutDecisionRecord]) -> String {
        var table = "<table class=\"releases\"><tr><th>Release</th><th>Devices</th><th>Installed</th><th>Rolled back</th>"
            + "<th>Failed</th><th>Other</th><th>Failure rate (95 % interval)</th><th>404s inside the app</th></tr>"
        for release in releases {
            let rate = release.failureRateInterval, found = release.notFoundRateInterval
            let last = history.last { $0.version == release.release }
            let rolledBack = release.outcomes[.rolledBack]?.count ?? 0, failed = release.outcomes[.failed]?.count ?? 0
            let other = [OutcomeReport.Outcome.held, .revoked, .staged, .pending, .incompatible].compactMap { outcome in
                release.outcomes[outcome].flatMap { $0.isEmpty ? nil : "\($0.count) \(outcome.rawValue)" }
            }
            table += #"<tr data-release="\#(release.release.escapedForHTML)" data-package="\#(release.package.escapedForHTML)" "#
                + #"data-devices="\#(release.devices.count)" data-tried="\#(release.triedDevices)" "#
                + #"data-installs="\#(release.installs)" data-rolled-back="\#(rolledBack)" data-failed="\#(failed)" "#
                + #"data-failure-rate="\#(release.failureRate)" data-failure-rate-low="\#(rate.lowerBound)" "#
                + #"data-failure-rate-high="\#(rate.upperBound)" data-serving-devices="\#(release.servingDevices)" "#
                + #"data-not-found="\#(release.notFoundTotal)" data-not-found-devices="\#(release.notFoundDevices)" "#
                + #"data-not-found-rate="\#(release.notFoundRate)" data-origin-fallbacks="\#(release.originFallbackTotal)">"#
            table += "<th>\(release.release.escapedForHTML)</th><td>\(release.devices.count)</td><td>\(release.installs)</td>"
                + "<td>\(rolledBack)\(Self.breakdown(release.rollbackCauses))</td>"
                + "<td>\(failed)\(Self.breakdown(release.failureCodes))</td><td>\(other.joined(separator: ", "))</td>"
            table += "<td>\(Self.percent(release.failureRate)) of \(release.triedDevices) that tried it "
                + "(\(Self.percent(rate.lowerBound)) to \(Self.percent(rate.upperBound)))"
                + Self.intervalBar("failure", rate: release.failureRate, rate, threshold: last?.maxFailureRate) + "</td>"
            if release.servingSignals.isEmpty {
                table += "<td>none reported</td>"
            } else {
                table += "<td>\(release.notFoundTotal) on \(release.notFoundDevices) of \(release.servingDevices) devices "
                    + "(\(Self.percent(release.notFoundRate)), \(Self.percent(found.lowerBound)) to \(Self.percent(found.upperBound))); "
                    + "\(release.originFallbackTotal) origin fallbacks"
                    + Self.intervalBar("not-found", rate: release.notFoundRate, found, threshold: last?.maxNotFoundRate) + "</td>"
            }
            table += "</tr>"
        }
        return table + "</table>"
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
        var table = "<h3>Rollout steps</h3><table class=\"steps\"><tr><th>Release</th><th>Step</th><th>Devices tried</th>"
            + "<th>Failed</th><th>Failure rate 95 % interval</th><th>Threshold</th><th>Last decision</th></tr>"
        for step in steps {
            let interval = step.failureRateLow...step.failureRateHigh
            let rate = step.devices == 0 ? 0 : Double(step.failedDevices) / Double(step.devices)
            table += #"<tr data-step="" data-version="\#(step.version.escapedForHTML)" data-percent="\#(step.percentBefore)" "#
                + #"data-devices="\#(step.devices)" data-failed-devices="\#(step.failedDevices)" "#
                + #"data-failure-rate-low="\#(step.failureRateLow)" data-failure-rate-high="\#(step.failureRateHigh)" "#
                + #"data-threshold="\#(step.maxFailureRate)" data-decision="\#(step.decision.rawValue)">"#
                + "<th>\(step.version.escapedForHTML)</th><td>\(Self.percent(step.percentBefore / 100))</td>"
                + "<td>\(step.devices) (\(step.minDevices) needed)</td><td>\(step.failedDevices)</td>"
                + "<td>\(Self.percent(interval.lowerBound)) to \(Self.percent(interval.upperBound))"
                + Self.intervalBar("step", rate: rate, interval, threshold: step.maxFailureRate) + "</td>"
                + "<td>\(Self.percent(step.maxFailureRate))"
                + (step.maxNotFoundRate.map { "; 404s \(Self.percent($0))" } ?? "") + "</td>"
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

    /// A bar from 0 showing a rate's 95 % interval, the rate, and the threshold when known.
    private static func intervalBar(_ kind: String, rate: Double, _ interval: ClosedRange<Double>, threshold: Double?) -> String {
        let scale = min(1, max(0.1, interval.upperBound * 1.2, (threshold ?? 0) * 2))
        func x(_ share: Double) -> String { DecimalText.tenths(4 + min(share, scale) / scale * 192, droppingZeroTenth: true) }
        var svg = #"<svg class="interval" viewBox="0 0 240 20" width="240" height="20" data-interval="\#(kind)" "#
            + #"data-low="\#(interval.lowerBound)" data-high="\#(interval.upperBound)" data-rate="\#(rate)""#
            + (threshold.map { #" data-threshold="\#($0)""# } ?? "") + ">"
        svg += #"<line class="scale" x1="4" x2="196" y1="10" y2="10"/>"#
        svg += #"<rect x="\#(x(interval.lowerBound))" y="5" height="10" "#
            + #"width="\#(DecimalText.tenths(max(1, (min(interval.upperBound, scale) - interval.lowerBound) / scale * 192), droppingZeroTenth: true))"/>"#
        svg += #"<circle cx="\#(x(rate))" cy="10" r="3"/>"#
        if let threshold {
            svg += #"<line class="threshold\#(interval.lowerBound > threshold ? " above" : "")" x1="\#(x(threshold))" "#
                + #"x2="\#(x(threshold))" y1="1" y2="19"><title>threshold \#(percent(threshold))</title></line>"#
        }
        return svg + #"<text x="200" y="14">\#(percent(scale))</text></svg>"#
    }

    private static func breakdown(_ groups: [String: Set<String>]) -> String {
        groups.isEmpty ? "" : " (" + groups.sorted { $0.key < $1.key }.map { "\($0.key.escapedForHTML) \($0.value.count)" }
            .joined(separator: ", ") + ")"
    }

    private static func percent(_ share: Double) -> String {
        DecimalText.tenths(share * 100, droppingZeroTenth: false) + " %"
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
