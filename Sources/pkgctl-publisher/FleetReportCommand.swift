import PkgCommandLine
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

            Each channel is counted apart: devices report next to the manifest they poll, so the path before \
            /report/v1 names the channel (/prod/report/v1 is prod); --channel keeps one. Each device is counted \
            once, on the release its last report put it on: an upgrade or downgrade moves it from the version \
            it left (f=) to the release (r=), a rollback of a release it had installed moves it back. \
            With --out-dir (the channel's publishing folder), what its manifest names now: the release, its \
            rollout share and pins, and since when.

            --html FILE also writes the report as one self-contained HTML page (inline SVG and CSS, no \
            script, nothing fetched), to read offline or attach to a ticket: per package, the devices on each \
            release over time (from the reports' times in the logs, in at most 200 buckets of a round width), \
            each release's numbers and failure-rate interval, and the 404s inside the app; with --out-dir, the \
            rollout steps against the watch's thresholds and the decisions of pkgctl fleet watch, marked on the \
            time axis.

            Prints one line per package release (under a heading per channel when reports came to more than \
            the root), one per package with its devices now, then the number of reports read; --json prints the \
            same numbers as JSON (with --html too), and the page shows them too. Exits 1 when a log cannot be read (a corrupt or cut gzip file is \
            named).

            Examples:
              # The current and rotated nginx logs, gzipped or not:
              pkgctl fleet report /var/log/nginx/access.log /var/log/nginx/access.log.2.gz
              # A CloudFront log read from stdin, the tally as JSON:
              pkgctl fleet report --json - < E2EXAMPLE.2026-01-01-12.abcd1234.gz
              # Production only, as a page to attach to a ticket, with what is published now and the watch's decisions:
              pkgctl fleet report /var/log/nginx/access.log --channel prod --html rollout.html \\
                --out-dir /srv/pkgctl/out/prod
            """)

    @Argument(help: ArgumentHelp("Access logs to read, plain or gzipped (- for stdin).", valueName: "log"))
    var logs: [String] = []

    @Flag(help: "Print the tally as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Also write the report as a self-contained HTML page to this file.", valueName: "file"))
    var html: String?

    @Option(name: .customLong("out-dir"), help: ArgumentHelp(
        "The publishing folder of the channel read: what its manifest names now, and the fleet watch's history.",
        valueName: "out-dir"))
    var outDir: String?

    @Option(help: ArgumentHelp("Only the reports to this channel: the path before /report/v1 (prod for /prod/report/v1; / for the root).",
                               valueName: "channel"))
    var channel: String?

    func run() throws {
        var tally = FleetTally()
        tally.timeline = FleetTimeline()
        tally.channel = channel.map(FleetChannel.init)
        for log in logs.isEmpty ? ["-"] : logs {
            try reportingErrors(json: json) { try LogLines.readReports(log, into: &tally) }
        }
        let published = try reportingErrors(json: json) { try outDir.map { try PublishingFolder($0).publishedReleases() } ?? [] }
        var summary: FleetSummary?
        if let html {
            try reportingErrors(json: json) {
                let decisions = try outDir.map { try RolloutDecisionRecord.history(in: $0) } ?? [:]
                let page = FleetReportPage(tally: tally, published: published, decisions: decisions)
                try FileSystem.writeAtomically(Array(page.html.utf8), to: html)
                summary = page.summary  // the same numbers on stdout, counted once
            }
        }
        let numbers = summary ?? FleetSummary(tally, published: published)
        if json {
            try Output.printJSON(numbers)
        } else {
            FleetReportText(summary: numbers, outDir: outDir).lines.forEach { print($0) }
        }
    }
}
