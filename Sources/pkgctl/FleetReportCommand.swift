import ArgumentParser
import FoundationEssentials
import Glibc
import PkgCore
import PkgPublishing

struct FleetReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Sum up the outcome reports in origin access logs, per package release.",
        discussion: """
            Reads logs in nginx's combined format (or any format that logs the request line), CloudFront \
            standard logs and Cloudflare Logpush JSON lines, any of them gzipped (told by the bytes, not the \
            name), and counts the GET .../report/v1?... requests pkgctl update sends: distinct devices, installs, \
            rollbacks by cause, failures by error code, and the failure rate among the devices that tried \
            the release (installed, rolled back or failed; a later install clears a failure) with its 95 % \
            interval, and what the devices' resolvers saw go wrong while serving it: 404s from the origin \
            inside the app (devices and total, with the share of the devices running it) and origin fallbacks. \
            No LOG, or -, reads stdin. A report line that does not read is counted as unreadable.

            --html FILE also writes the report as one self-contained HTML page (inline SVG and CSS, no \
            script, nothing fetched), to read offline or attach to a ticket: per package, the devices on each \
            release over time (from the reports' times in the logs, in at most 200 buckets of a round width), \
            each release's numbers and failure-rate interval, and the 404s inside the app; with --out-dir, the \
            rollout steps against the watch's thresholds and the decisions of pkgctl fleet watch, marked on the \
            time axis.

            Prints one block per package release, then the number of reports read; --json prints the \
            tally as JSON (with --html too). Exits 1 when a log cannot be read (a corrupt or cut gzip file is \
            named).

            Examples:
              # The current and rotated nginx logs, gzipped or not:
              pkgctl fleet report /var/log/nginx/access.log /var/log/nginx/access.log.2.gz
              # A CloudFront log read from stdin, the tally as JSON:
              pkgctl fleet report --json - < E2EXAMPLE.2026-01-01-12.abcd1234.gz
              # A page to attach to a ticket, with the watch's decisions on it:
              pkgctl fleet report /var/log/nginx/access.log --html rollout.html \\
                --out-dir /srv/pkgctl/out
            """)

    @Argument(help: ArgumentHelp("Access logs to read, plain or gzipped (- for stdin).", valueName: "log"))
    var logs: [String] = []

    @Flag(help: "Print the tally as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Also write the report as a self-contained HTML page to this file.", valueName: "file"))
    var html: String?

    @Option(name: .customLong("out-dir"), help: ArgumentHelp(
        "With --html: the publisher's output folder, whose fleet watch history the page shows.", valueName: "out-dir"))
    var outDir: String?

    func validate() throws {
        if outDir != nil, html == nil { throw ValidationError("--out-dir goes with --html") }
    }

    func run() throws {
        var tally = FleetTally()
        if html != nil { tally.timeline = FleetTimeline() }
        for log in logs.isEmpty ? ["-"] : logs {
            try reportingErrors(json: json) { try LogLines.readReports(log, into: &tally) }
        }
        if let html {
            try reportingErrors(json: json) {
                let decisions = try outDir.map { try RolloutDecisionRecord.history(in: $0) } ?? [:]
                try FileSystem.writeAtomically(Array(FleetReportPage(tally: tally, decisions: decisions).html.utf8), to: html)
            }
        }
        if json {
            try Output.printJSON(FleetSummary(tally))
            return
        }
        for release in tally.releases {
            let rate = release.failureRateInterval
            var line = "\(release.package) \(release.release): \(release.devices.count) devices, \(release.installs) installed"
            line += ", \(release.outcomes[.rolledBack]?.count ?? 0) rolled back" + Self.breakdown(release.rollbackCauses)
            line += ", \(release.outcomes[.failed]?.count ?? 0) failed" + Self.breakdown(release.failureCodes)
            for outcome in [OutcomeReport.Outcome.held, .revoked, .staged, .pending, .incompatible] {
                if let devices = release.outcomes[outcome], !devices.isEmpty { line += ", \(devices.count) \(outcome.rawValue)" }
            }
            line += "; failure rate \(Self.percent(release.failureRate)) of \(release.triedDevices) that tried it"
                + " (95 % interval \(Self.percent(rate.lowerBound))"
                + " to \(Self.percent(rate.upperBound)))"
            if !release.servingSignals.isEmpty {
                let found = release.notFoundRateInterval
                line += "; 404s inside the app: \(release.notFoundTotal) on \(release.notFoundDevices) of "
                    + "\(release.servingDevices) devices (\(Self.percent(release.notFoundRate)), 95 % interval "
                    + "\(Self.percent(found.lowerBound)) to \(Self.percent(found.upperBound))), "
                    + "\(release.originFallbackTotal) origin fallbacks"
            }
            print(line)
        }
        print("\(tally.reports) reports, \(tally.unreadable) unreadable report lines")
    }

    private static func breakdown(_ groups: [String: Set<String>]) -> String {
        groups.isEmpty ? "" : " (" + groups.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.count)" }
            .joined(separator: ", ") + ")"
    }

    private static func percent(_ share: Double) -> String {
        DecimalText.tenths(share * 100, droppingZeroTenth: false) + " %"
    }
}

/// The JSON `fleet report --json` prints.
struct FleetSummary: Encodable {
    struct Release: Encodable {
        var package: String
        var release: String
        var devices: Int
        var tried: Int
        var installs: Int
        var outcomes: [String: Int]
        var rollbacks: [String: Int]
        var failures: [String: Int]
        var failureRate: Double
        var failureRateLow: Double
        var failureRateHigh: Double
        var servingDevices: Int
        var notFound: Int
        var notFoundDevices: Int
        var notFoundRate: Double
        var originFallbacks: Int
    }
    var releases: [Release]
    var reports: Int
    var unreadable: Int

    init(_ tally: FleetTally) {
        releases = tally.releases.map { release in
            Release(package: release.package, release: release.release, devices: release.devices.count,
                    tried: release.triedDevices, installs: release.installs,
                    outcomes: Dictionary(uniqueKeysWithValues: release.outcomes.map { ($0.key.rawValue, $0.value.count) }),
                    rollbacks: release.rollbackCauses.mapValues(\.count), failures: release.failureCodes.mapValues(\.count),
                    failureRate: release.failureRate, failureRateLow: release.failureRateInterval.lowerBound,
                    failureRateHigh: release.failureRateInterval.upperBound, servingDevices: release.servingDevices,
                    notFound: release.notFoundTotal, notFoundDevices: release.notFoundDevices,
                    notFoundRate: release.notFoundRate, originFallbacks: release.originFallbackTotal)
        }
        reports = tally.reports
        unreadable = tally.unreadable
    }
}
