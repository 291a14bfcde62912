import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct FleetWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Advance, hold or halt a package's staged rollout from the devices' outcome reports.",
        discussion: """
            Run from cron or a systemd timer on the publishing side. Reads the logs (as fleet report \
            does) and decides one thing for the package's newest release: halt (revoke it, re-signed, so \
            devices switch back) when more than --max-failure-rate of its reporting devices rolled it \
            back or failed to install it (with --min-devices of them, or the whole 95 % interval above \
            the threshold), or, with --max-404-rate, when more than that share of the devices running it \
            met a 404 inside the app (a broken link its health check missed; counted by the resolvers and \
            sent with update's reports); advance to the next of --steps once --min-devices reported it and --interval \
            passed since the step was first seen; otherwise hold. A rate above the threshold halts with 3 \
            failed devices among --min-devices, or with 2 when its whole 95 % interval is above the \
            threshold. A hold for want of evidence lasts at most --max-holds intervals: then a rate above \
            the threshold halts (from 2 failed devices), a step whose share of the fleet gave fewer than \
            --min-devices devices advances on those it has, and one no device tried (or one failure alone) \
            is undecided.

            Each channel is watched apart: --channel prod counts only the reports to /prod/report/v1 (devices \
            report next to the manifest they poll), and logs with reports to several channels are undecided \
            without it. Prints one line: what and why (--json: the decision and its numbers). Holds OUT_DIR's lock, as \
            pack, rollout and revoke do; running it again decides the same, and --dry-run changes nothing. \
            A signed manifest needs --sign. Keeps the step it is at and its last 500 decisions (a repeated \
            hold or done counted once) in OUT_DIR/.pkgctl-watch-NAME.json, unless --dry-run; pkgctl fleet \
            report --html FILE --out-dir OUT_DIR draws them on a timeline. Exit status: 0 advanced, held, done or idle; 2 halted a release; \
            3 could not decide (a log that cannot be read, logs with no outcome report, no device tried the \
            release, or one failure alone after --max-holds intervals); 1 any other failure; 64 bad usage. \
            Publish after it whatever it exits with: a halt reaches devices only once published.

            Examples:
              # From cron every 10 minutes: decide on the publishing folder, publish it:
              pkgctl fleet watch /srv/pkgctl/out demo --log /var/log/nginx/access.log \\
                --steps 1,5,25,100 --interval 1h --max-failure-rate 5 --min-devices 50 \\
                --sign /etc/pkgctl/keys/release.key; \\
                pkgctl publish /srv/pkgctl/out /srv/www/app
              # Only say what it would decide, halting on 404s inside the app too:
              pkgctl fleet watch out demo --log access.log --interval 30m \\
                --max-failure-rate 5 --max-404-rate 10 --min-devices 20 --dry-run
            """)

    @Argument(help: ArgumentHelp("Directory holding manifest.json.", valueName: "out-dir"))
    var out: String

    @Argument(help: "Package name.")
    var name: String

    @Option(name: .customLong("log"), help: ArgumentHelp("An origin access log to read (repeatable; - for stdin).",
                                                         valueName: "file"))
    var logs: [String] = []

    @Option(help: ArgumentHelp("Rollout percentages, increasing (default: 1,5,25,100).", valueName: "list"))
    var steps: String = "1,5,25,100"

    @Option(help: ArgumentHelp("Least time at a step: SECONDS, or a number followed by s, m, h or d.",
                               valueName: "duration"))
    var interval: String

    @Option(name: .customLong("max-failure-rate"), help: ArgumentHelp(
        "Highest percentage of reporting devices that may roll back or fail the release.", valueName: "pct"))
    var maxFailureRate: Double

    @Option(name: .customLong("max-404-rate"), help: ArgumentHelp(
        "Highest percentage of devices running the release whose app may meet a 404 inside it (default: not watched).",
        valueName: "pct"))
    var maxNotFoundRate: Double?

    @Option(name: .customLong("min-devices"), help: ArgumentHelp(
        "Devices that must report the release before it advances.", valueName: "n"))
    var minDevices: Int

    @Option(name: .customLong("max-holds"), help: ArgumentHelp(
        "Intervals a step may hold for want of evidence before the watch decides on what it has (default: 3).",
        valueName: "n"))
    var maxHolds: Int = 3

    @Option(help: RuntimeRangeArgument.help)
    var runtime: String?

    @Flag(help: "Print the decision and its numbers as JSON.")
    var json = false

    @Flag(name: .customLong("dry-run"), help: "Print the decision; change nothing.")
    var dryRun = false

    @Option(help: ArgumentHelp("Only the reports to this channel: the path before /report/v1 (prod for /prod/report/v1; / for the root). "
                               + "Needed when the logs hold reports to several channels.", valueName: "channel"))
    var channel: String?

    @OptionGroup var signing: SigningOptions

    func validate() throws {
        guard !logs.isEmpty else { throw ValidationError("give at least one --log") }
        guard let parsed = parsedSteps, !parsed.isEmpty, zip(parsed, parsed.dropFirst()).allSatisfy({ $0 < $1 }),
              parsed.allSatisfy({ (0...100).contains($0) && $0 > 0 }) else {
            throw ValidationError("--steps must be increasing percentages above 0, at most 100, comma-separated "
                                  + "(got '\(String(steps.prefix(100)))')")
        }
        guard DurationText.parse(interval) != nil else {
            throw ValidationError("--interval must be a duration: SECONDS, or a number followed by s, m, h or d "
                                  + "(got '\(String(interval.prefix(100)))')")
        }
        guard (0...100).contains(maxFailureRate) else { throw ValidationError("--max-failure-rate must be 0 to 100") }
        if let maxNotFoundRate, !(0...100).contains(maxNotFoundRate) {
            throw ValidationError("--max-404-rate must be 0 to 100")
        }
        guard minDevices >= 1 else { throw ValidationError("--min-devices must be at least 1") }
        guard (0...1000).contains(maxHolds) else { throw ValidationError("--max-holds must be 0 to 1000") }
        _ = try RuntimeRangeArgument.parse(runtime, package: name)
    }

    private var parsedSteps: [Double]? {
        let parts: [Double?] = steps.split(separator: ",", omittingEmptySubsequences: false)
            .map { Double($0.filter { $0 != " " }) }
        return parts.contains(nil) ? nil : parts.compactMap { $0 }
    }

    func run() throws {
        var tally = FleetTally()
        tally.channel = channel.map(FleetChannel.init)
        do {
            for log in logs { try reportingErrors(json: json) { try LogLines.readReports(log, into: &tally) } }
        } catch {
            throw ExitCode(ExitStatus.undecided)
        }
        let watch = RolloutWatch(outputDirectory: out, name: name, steps: parsedSteps ?? [],
                                 interval: DurationText.parse(interval) ?? 0, maxFailureRate: maxFailureRate / 100,
                                 minDevices: minDevices, maxNotFoundRate: maxNotFoundRate.map { $0 / 100 },
                                 runtime: try RuntimeRangeArgument.parse(runtime, package: name), maxHolds: maxHolds)
        let verdict = try reportingErrors(json: json) { try watch.run(tally, dryRun: dryRun, signer: try signing.signer()) }
        if json {
            try Output.printJSON(WatchVerdictJSON(package: name, runtime: runtime, verdict: verdict, dryRun: dryRun,
                                                  minDevices: minDevices, maxHolds: maxHolds))
        } else {
            print(verdict.line)
        }
        switch verdict.decision {
        case .halt: throw ExitCode(ExitStatus.halted)
        case .undecided: throw ExitCode(ExitStatus.undecided)
        case .advance, .hold, .done, .idle: return
        }
    }
}
