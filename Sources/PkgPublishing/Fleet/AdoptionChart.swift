import FoundationEssentials
import PkgCore

/// One package's adoption curve as inline SVG: devices on each release over time (one
/// polyline a release), and the rollout watch's decisions as marks on the same time axis.
/// Every element a reader may check carries `data-` attributes: `data-series` on each line
/// (`data-channel`, `data-package`, `data-release`, `data-devices` as comma-separated counts per bucket),
/// `data-decision` on each mark (`data-version`, `data-percent-before`, `data-percent`,
/// `data-time`), `data-axis` on axis labels. The time axis is the logs' time: decisions outside
/// it are not marked (the page lists them all).
struct AdoptionChart {
    var channel: FleetChannel
    var package: String
    var adoption: FleetAdoption
    var series: [FleetAdoption.Series]
    var decisions: [RolloutDecisionRecord]
    /// Releases the page shows halted, drawn dashed.
    var halted: Set<String>

    private let width = 960.0, height = 320.0
    private let left = 56.0, right = 16.0, top = 16.0, bottom = 40.0

    /// The time axis: the logs' time, widened for the decisions up to a quarter of it (or a
    /// bucket) beyond (a watch decides just after the lines it read); the decisions' time when
    /// the logs gave none.
    private var domain: ClosedRange<Double> {
        guard adoption.buckets > 0 else {
            let first = decisions.first?.time ?? 0
            return first...max(first + 1, decisions.last.map { $0.lastTime ?? $0.time } ?? 0)
        }
        let logs = adoption.start...adoption.end(of: adoption.buckets - 1)
        let reach = max(adoption.width, (logs.upperBound - logs.lowerBound) / 4)
        let near = decisions.flatMap { [$0.time, $0.lastTime ?? $0.time] }
            .filter { $0 >= logs.lowerBound - reach && $0 <= logs.upperBound + reach }
        return min(logs.lowerBound, near.min() ?? .infinity)...max(logs.upperBound, near.max() ?? -.infinity)
    }

    /// The decisions on the time axis (a repeated one when any of its runs is).
    var marked: [RolloutDecisionRecord] {
        let domain = domain
        return decisions.filter { $0.time <= domain.upperBound && ($0.lastTime ?? $0.time) >= domain.lowerBound }
    }

    /// The SVG element.
    var svg: String {
        let times = (0..<adoption.buckets).map { adoption.end(of: $0) }
        let domain = domain
        let first = domain.lowerBound, span = domain.upperBound - domain.lowerBound
        let peak = max(1, series.flatMap(\.devices).max() ?? 1)
        func x(_ time: Double) -> Double { left + (time - first) / span * (width - left - right) }
        func y(_ devices: Int) -> Double { top + (1 - Double(devices) / Double(peak)) * (height - top - bottom) }

        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 \#(Int(width)) \#(Int(height))" "#
            + #"role="img" data-chart="adoption" data-channel="\#(channel.name.escapedForHTML)" data-package="\#(package.escapedForHTML)" data-bucket-seconds="\#(Int(adoption.width))">"#
        svg += "<title>Devices on each release of \(package.escapedForHTML) over time</title>"
        svg += #"<text class="axis" text-anchor="middle" transform="translate(14 \#((top + height - bottom) / 2)) rotate(-90)">"#
            + "devices</text>"
        for tick in Self.ticks(upTo: peak) {
            svg += #"<line class="grid" x1="\#(left)" x2="\#(width - right)" y1="\#(y(tick))" y2="\#(y(tick))"/>"#
            svg += #"<text class="axis" data-axis="y" x="\#(left - 6)" y="\#(y(tick) + 4)" text-anchor="end">\#(tick)</text>"#
        }
        for index in 0..<5 {
            let time = first + span * Double(index) / 4
            svg += #"<text class="axis" data-axis="x" x="\#(x(time))" y="\#(height - bottom + 18)" "#
                + #"text-anchor="\#(index == 0 ? "start" : index == 4 ? "end" : "middle")">\#(Self.clock(time))</text>"#
        }
        for (index, line) in series.enumerated() {
            let points = zip(times, line.devices).map { "\(Self.number(x($0))),\(Self.number(y($1)))" }.joined(separator: " ")
            svg += #"<polyline class="series c\#(index % Self.colours)\#(halted.contains(line.release) ? " halted" : "")" "#
                + #"data-series="" data-channel="\#(channel.name.escapedForHTML)" data-package="\#(package.escapedForHTML)" data-release="\#(line.release.escapedForHTML)" "#
                + #"data-devices="\#(line.devices.map(String.init).joined(separator: ","))" points="\#(points)">"#
                + "<title>\(line.release.escapedForHTML): \(line.devices.last ?? 0) devices at the end</title></polyline>"
        }
        for decision in marked {
            let at = Self.number(x(max(first, decision.time)))
            svg += #"<g class="mark \#(decision.decision.rawValue)" data-decision="\#(decision.decision.rawValue)" "#
                + #"data-version="\#(decision.version.escapedForHTML)" data-percent-before="\#(decision.percentBefore)" "#
                + #"data-percent="\#(decision.percent)" data-time="\#(decision.time)">"#
                + #"<line x1="\#(at)" x2="\#(at)" y1="\#(top)" y2="\#(height - bottom)"/>"#
                + #"<circle cx="\#(at)" cy="\#(top + 4)" r="4"/><title>\#(Self.clock(decision.time)) "#
                + (decision.lastTime.map { "to \(Self.clock($0)), \(decision.runs ?? 1) runs: " } ?? "")
                + "\(decision.line.escapedForHTML)</title></g>"
        }
        return svg + "</svg>"
    }

    /// Colours in the page's style sheet (`.c0` ...).
    static let colours = 8

    /// Round y-axis values from 0 to about `peak`.
    private static func ticks(upTo peak: Int) -> [Int] {
        let rough = max(1, peak / 4)
        var magnitude = 1
        while magnitude * 10 <= rough { magnitude *= 10 }
        let step = ([1, 2, 5, 10].first { $0 * magnitude >= rough } ?? 10) * magnitude
        return Array(stride(from: 0, through: peak, by: step))
    }

    /// "2026-11-25 17:00" (UTC).
    static func clock(_ time: Double) -> String {
        let text = InternetDate.format(Date(timeIntervalSince1970: time))
        return String(text.prefix(16).map { $0 == "T" ? " " : $0 })
    }

    private static func number(_ value: Double) -> String {
        DecimalText.tenths(value, droppingZeroTenth: true)
    }
}
