import PkgCore
import PkgPublishing

/// `pkgctl fleet report`'s text: the numbers of a ``FleetSummary``, one line a release, each
/// channel under a heading of its own (none when every report came to the root).
struct FleetReportText {
    var summary: FleetSummary
    var outDir: String?

    var lines: [String] {
        var lines: [String] = []
        let channels = summary.packages.map(\.channel).reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        for channel in channels {
            if channels != [""] { lines.append("channel \(FleetChannel(channel)):") }
            for package in summary.packages where package.channel == channel {
                lines += summary.releases(channel, package.package).map(Self.line)
                if let now = package.devicesNow, let silent = package.silentSinceNewest {
                    lines.append("\(package.package): \(now) devices on its releases now, each where its last report put it; "
                                 + "\(silent) on older releases sent no report about \(package.newest), the newest")
                }
            }
        }
        if let outDir {
            lines += summary.published.map { "published in \(outDir): " + $0.sentence }
        }
        if !summary.otherChannels.isEmpty {
            lines.append("skipped the reports to " + summary.otherChannels.map { FleetChannel($0).description }.joined(separator: ", "))
        }
        lines.append("\(summary.reports) reports, \(summary.unreadable) unreadable report lines")
        return lines
    }

    private static func line(_ release: FleetSummary.Release) -> String {
        var line = "\(release.package) \(release.release): \(release.devices) devices, \(release.installs) installed"
        line += ", \(release.outcomes["rolledBack"] ?? 0) rolled back" + breakdown(release.rollbacks)
        line += ", \(release.outcomes["failed"] ?? 0) failed" + breakdown(release.failures)
        for (outcome, devices) in release.otherOutcomes { line += ", \(devices) \(outcome)" }
        if (release.outcomes["confirmed"] ?? 0) + (release.outcomes["reverted"] ?? 0) > 0 {
            line += "; by launches: \(release.outcomes["confirmed"] ?? 0) confirmed, \(release.outcomes["reverted"] ?? 0) reverted"
                + breakdown(release.reverts)
        }
        line += "; failure rate \(FleetSummary.percent(release.failureRate)) of \(release.tried) that tried it"
            + " (95 % interval \(FleetSummary.percent(release.failureRateLow)) to \(FleetSummary.percent(release.failureRateHigh)))"
        if release.failuresCancelled > 0 {
            line += ", not counting \(release.failuresCancelled) that failed it and installed it on a later run"
        }
        if release.signalDevices > 0 {
            line += "; 404s inside the app: \(release.notFound) on \(release.notFoundDevices) of "
                + "\(release.servingDevices) devices (\(FleetSummary.percent(release.notFoundRate)), 95 % interval "
                + "\(FleetSummary.percent(release.notFoundRateLow)) to \(FleetSummary.percent(release.notFoundRateHigh))), "
                + "\(release.originFallbacks) origin fallbacks"
        }
        let fellBack = release.zipFallbacks.values.reduce(0, +)
        if fellBack > 0 { line += "; \(fellBack) installed from the zip instead of a delta" + breakdown(release.zipFallbacks) }
        if let bytes = release.bytesFetched {
            line += "; \(bytes) bytes fetched in \(release.reportsWithBytes) reported runs"
        }
        if let now = release.devicesNow { line += "; \(now) on it now" }
        return line
    }

    private static func breakdown(_ groups: [String: Int]) -> String {
        groups.isEmpty ? "" : " (" + groups.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            .joined(separator: ", ") + ")"
    }
}
