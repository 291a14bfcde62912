import PkgCore

/// The fleet page's table of one package's releases in one channel: the numbers of
/// ``FleetSummary`` (the text and JSON report print the same), each column labelled, a column
/// no release has a value for left out. Rows carry `data-` attributes with the raw numbers.
struct FleetReleaseTable {
    var releases: [FleetSummary.Release]
    var history: [RolloutDecisionRecord]

    /// Which optional columns the table has: those some release has a value for.
    private struct Columns {
        var other, launches, notFound, fallbacks, bytes: Bool

        init(_ releases: [FleetSummary.Release]) {
            other = releases.contains { !$0.otherOutcomes.isEmpty }
            launches = releases.contains { ($0.outcomes["confirmed"] ?? 0) + ($0.outcomes["reverted"] ?? 0) > 0 }
            notFound = releases.contains { $0.signalDevices > 0 }
            fallbacks = releases.contains { !$0.zipFallbacks.isEmpty }
            bytes = releases.contains { $0.bytesFetched != nil }
        }

        var header: String {
            "<tr><th>Release</th><th>On it now</th><th>Devices reporting</th>"
                + "<th>Installed</th><th>Rolled back</th><th>Failed</th>" + (other ? "<th>Other reports</th>" : "")
                + (launches ? "<th>Confirmed by launches</th><th>Reverted by launches</th>" : "")
                + "<th>Failure rate (95 % interval)</th>" + (notFound ? "<th>404s inside the app</th>" : "")
                + (fallbacks ? "<th>Installed from the zip instead of a delta</th>" : "")
                + (bytes ? "<th>Bytes fetched</th>" : "") + "</tr>"
        }
    }

    var html: String {
        let columns = Columns(releases)
        return "<table class=\"releases\">" + columns.header + releases.map { row($0, columns) }.joined() + "</table>"
    }

    /// One release's row: its `data-` attributes, then a cell per column.
    private func row(_ release: FleetSummary.Release, _ columns: Columns) -> String {
        let other = release.otherOutcomes.map { "\($0.devices) \($0.outcome)" }
        let last = history.last { $0.version == release.release }
        let rolledBack = release.outcomes["rolledBack"] ?? 0, failed = release.outcomes["failed"] ?? 0
        var row = #"<tr data-channel="\#(release.channel.escapedForHTML)" data-package="\#(release.package.escapedForHTML)" "#
            + #"data-release="\#(release.release.escapedForHTML)" data-devices-now="\#(release.devicesNow.map(String.init) ?? "")" "#
            + #"data-devices="\#(release.devices)" data-tried="\#(release.tried)" "#
            + #"data-installs="\#(release.installs)" data-rolled-back="\#(rolledBack)" data-failed="\#(failed)" "#
            + #"data-failures-cancelled="\#(release.failuresCancelled)" "#
            + #"data-failure-rate="\#(release.failureRate)" data-failure-rate-low="\#(release.failureRateLow)" "#
            + #"data-failure-rate-high="\#(release.failureRateHigh)" data-serving-devices="\#(release.servingDevices)" "#
            + #"data-not-found="\#(release.notFound)" data-not-found-devices="\#(release.notFoundDevices)" "#
            + #"data-not-found-rate="\#(release.notFoundRate)" data-origin-fallbacks="\#(release.originFallbacks)" "#
            + #"data-confirmed="\#(release.outcomes["confirmed"] ?? 0)" data-reverted="\#(release.outcomes["reverted"] ?? 0)" "#
            + #"data-zip-fallbacks="\#(release.zipFallbacks.values.reduce(0, +))" "#
            + #"data-bytes-fetched="\#(release.bytesFetched.map(String.init) ?? "")">"#
        row += "<th>\(release.release.escapedForHTML)</th><td>\(release.devicesNow.map(String.init) ?? "no times")</td>"
            + "<td>\(release.devices)</td><td>\(release.installs)</td>"
            + "<td>\(rolledBack)\(Self.breakdown(release.rollbacks))</td>"
            + "<td>\(failed)\(Self.breakdown(release.failures))"
            + (release.failuresCancelled > 0
                ? "<br><span class=\"note\">\(release.failuresCancelled) of them installed it on a later run: "
                    + "not counted in the failure rate</span>" : "") + "</td>"
            + (columns.other ? "<td>\(other.joined(separator: ", "))</td>" : "")
            + (columns.launches ? "<td>\(release.outcomes["confirmed"] ?? 0)</td>"
                + "<td>\(release.outcomes["reverted"] ?? 0)\(Self.breakdown(release.reverts))</td>" : "")
        let interval = release.failureRateLow...release.failureRateHigh
        row += "<td>\(FleetSummary.percent(release.failureRate)) of \(release.tried) that tried it "
            + "(\(FleetSummary.percent(interval.lowerBound)) to \(FleetSummary.percent(interval.upperBound)))"
            + Self.intervalBar("failure", rate: release.failureRate, interval, threshold: last?.maxFailureRate) + "</td>"
        if columns.notFound {
            let found = release.notFoundRateLow...release.notFoundRateHigh
            row += release.signalDevices == 0 ? "<td>none reported</td>"
                : "<td>\(release.notFound) on \(release.notFoundDevices) of \(release.servingDevices) devices "
                    + "(\(FleetSummary.percent(release.notFoundRate)), \(FleetSummary.percent(found.lowerBound)) to "
                    + "\(FleetSummary.percent(found.upperBound))); \(release.originFallbacks) origin fallbacks"
                    + Self.intervalBar("not-found", rate: release.notFoundRate, found, threshold: last?.maxNotFoundRate) + "</td>"
        }
        if columns.fallbacks {
            row += "<td>\(release.zipFallbacks.values.reduce(0, +))\(Self.breakdown(release.zipFallbacks))</td>"
        }
        if columns.bytes {
            row += "<td>" + (release.bytesFetched.map { "\($0) in \(release.reportsWithBytes) reported runs" } ?? "not reported")
                + "</td>"
        }
        return row + "</tr>"
    }

    /// What the publishing folder's manifest names now, one line a package.
    static func publishedList(_ published: [PublishedRelease]) -> String {
        "<h2>Published now</h2><ul class=\"published\">" + published.map { release in
            #"<li data-package="\#(release.package.escapedForHTML)" data-release="\#(release.release.escapedForHTML)" "#
                + #"data-rollout-percent="\#(release.rolloutPercent ?? 100)" data-pinned="\#(release.pinnedDevices ?? 0)">"#
                + release.sentence.escapedForHTML
                + "</li>"
        }.joined() + "</ul>"
    }

    /// A bar on an axis from 0 to the labelled end: the rate's 95 % interval (the bar), the rate
    /// (the dot) and the threshold when known (the red line).
    static func intervalBar(_ kind: String, rate: Double, _ interval: ClosedRange<Double>, threshold: Double?) -> String {
        let scale = min(1, max(0.1, interval.upperBound * 1.2, (threshold ?? 0) * 2))
        func x(_ share: Double) -> String { DecimalText.tenths(14 + min(share, scale) / scale * 182, droppingZeroTenth: true) }
        var svg = #"<svg class="interval" viewBox="0 0 260 20" width="260" height="20" data-interval="\#(kind)" "#
            + #"data-low="\#(interval.lowerBound)" data-high="\#(interval.upperBound)" data-rate="\#(rate)" "#
            + #"data-axis-end="\#(scale)""# + (threshold.map { #" data-threshold="\#($0)""# } ?? "") + ">"
        svg += "<title>bar: 95 % interval \(FleetSummary.percent(interval.lowerBound)) to "
            + "\(FleetSummary.percent(interval.upperBound)); dot: \(FleetSummary.percent(rate))" + (threshold.map { "; red line: threshold \(FleetSummary.percent($0))" } ?? "")
            + "; axis 0 to \(FleetSummary.percent(scale))</title>"
        svg += #"<text x="0" y="14">0</text><line class="scale" x1="14" x2="196" y1="10" y2="10"/>"#
        svg += #"<rect x="\#(x(interval.lowerBound))" y="5" height="10" "#
            + #"width="\#(DecimalText.tenths(max(1, (min(interval.upperBound, scale) - interval.lowerBound) / scale * 182), droppingZeroTenth: true))"/>"#
        svg += #"<circle cx="\#(x(rate))" cy="10" r="3"/>"#
        if let threshold {
            svg += #"<line class="threshold\#(interval.lowerBound > threshold ? " above" : "")" x1="\#(x(threshold))" "#
                + #"x2="\#(x(threshold))" y1="1" y2="19"/>"#
        }
        return svg + #"<text x="200" y="14">\#(FleetSummary.percent(scale)) axis</text></svg>"#
    }

    private static func breakdown(_ groups: [String: Int]) -> String {
        groups.isEmpty ? "" : " (" + groups.sorted { $0.key < $1.key }.map { "\($0.key.escapedForHTML) \($0.value)" }
            .joined(separator: ", ") + ")"
    }
}
