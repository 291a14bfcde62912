import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore

struct UpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Install every package whose manifest version differs from the active one.",
        discussion: """
            Fetches the manifest with a conditional request (a 304 does no other work) and installs every \
            package whose manifest version differs from the active one: downloaded into staging, its size \
            and SHA-256 checked while streaming, unzipped, flushed to disk, then made active by an atomic \
            symlink swap. When a version is installed, only a tree delta or the changed files are fetched. \
            Packages the manifest no longer lists stay installed and served.

            With --trusted-key, only a manifest signed by --threshold of the keys, not expired and not older \
            than the newest one accepted is used; without, the manifest is not authenticated. \
            --health-check CMD runs after each switch and switches back, holding the version, when it fails. \
            A held version, a rollout that does not include this device yet, or a version waiting for an \
            --activate-window is reported and not installed.

            Prints one line per package and version (a progress bar on a terminal; --json a summary). \
            Exits 0 when no package failed (held, staged, revoked, pending and incompatible ones do not fail), \
            also when nothing changed; otherwise prints one line per failed package on stderr and exits 1. \
            A failed package keeps its active version. Exits 75 when --no-wait finds the store locked, 78 when \
            the config file or a PKGCTL_* setting cannot be used. Every option may instead come from the \
            config file (update.KEY) or the environment (PKGCTL_UPDATE_KEY); see pkgctl config.

            Examples:
              # Install what a signed manifest names, trusting one release key:
              pkgctl update --manifest https://cdn.example.com/app/manifest.json \\
                --trusted-key /etc/pkgctl/keys/release.pub
              # From cron (the manifest URL in the config file), with a JSON summary:
              pkgctl update --jitter 600 --no-wait --json
              # Switch back (and hold the new version) when the app stops answering:
              pkgctl update --health-check 'curl -fsSo /dev/null localhost:8080/app/'
              # Print this device's id, for pkgctl rollout --devices:
              pkgctl update --print-device-id
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Manifest URL (http, https or file); required here or in the config.", valueName: "url"))
    var manifest: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM file of CAs to trust for https.", valueName: "pem"))
    var caFile: String?

    @Option(name: .customLong("trusted-key"),
            help: ArgumentHelp("Public key (.pub) a manifest must be signed by (repeatable).", valueName: "pubfile"))
    var trustedKeys: [String] = []

    @Option(name: .customLong("trusted-root"), help: ArgumentHelp(
        "Root of trust (root.json, pkgctl root) to start from instead of --trusted-key: it says which keys sign "
            + "manifests and timestamps, and newer roots the origin publishes in roots/ are followed.", valueName: "file"))
    var trustedRoot: String?

    @Option(name: .customLong("timestamp-key"), help: ArgumentHelp(
        "Public key (.pub) of the online timestamp role (repeatable): every run then needs timestamp.json beside "
            + "the manifest, signed by one of them, naming the manifest and not expired.", valueName: "pubfile"))
    var timestampKeys: [String] = []

    @Option(help: ArgumentHelp("How many distinct trusted keys must sign the manifest "
                               + "(default: \(UpdateSettings.Defaults.threshold)).", valueName: "n"))
    var threshold: Int?

    @Option(name: .customLong("health-check"), help: ArgumentHelp(
        "Shell command run after each switch, with PKGCTL_PACKAGE, PKGCTL_VERSION, PKGCTL_PATH set; "
            + "failing or timing out switches back and holds the version.", valueName: "cmd"))
    var healthCheck: String?

    @Option(name: .customLong("confirm-after-launches"), help: ArgumentHelp(
        "Switch a new version in on trial and confirm it after N clean launches: the resolvers serving it "
            + "count the pages it answers and the scripts and stylesheets it lacks "
            + "(default \(LaunchTrialRule.defaultConfirmAfter) when only --revert-after-bad-launches is given).",
        valueName: "n"))
    var confirmAfterLaunches: Int?

    @Option(name: .customLong("revert-after-bad-launches"), help: ArgumentHelp(
        "Switch back from a version on trial and hold it after N bad launches "
            + "(default \(LaunchTrialRule.defaultRevertAfter) when only --confirm-after-launches is given).", valueName: "n"))
    var revertAfterBadLaunches: Int?

    @Option(name: .customLong("health-timeout"),
            help: ArgumentHelp("Seconds the health check may run (default: \(DecimalText.tenths(UpdateSettings.Defaults.healthTimeout, droppingZeroTenth: true))).", valueName: "seconds"))
    var healthTimeout: Double?

    @Option(name: .customLong("device-id"), help: ArgumentHelp(
        "This device's id for staged rollouts (default: a random id made once and kept in the store).", valueName: "id"))
    var deviceID: String?

    @Option(help: ArgumentHelp("Wait a random 0 to SECONDS before the check, so a fleet does not poll in step "
                               + "(default: \(DecimalText.tenths(UpdateSettings.Defaults.jitter, droppingZeroTenth: true))).", valueName: "seconds"))
    var jitter: Double?

    @Option(help: "Installed versions to keep per package; the active one always stays (default: \(UpdateSettings.Defaults.keep)).")
    var keep: Int?

    @Option(help: "Seconds to wait for a connection (default: \(UpdateSettings.Defaults.connectTimeout)).")
    var connectTimeout: Int?

    @Option(help: "Seconds a transfer may stall before it is retried (default: \(UpdateSettings.Defaults.stallTimeout)).")
    var stallTimeout: Int?

    @Option(help: ArgumentHelp("Bytes per second a transfer must average over the stall timeout, or it is cut off "
                               + "(default: \(UpdateSettings.Defaults.minRate)).", valueName: "bytes"))
    var minRate: Int?

    @Option(help: ArgumentHelp("Time the run's transfers may take once it holds the store: SECONDS or e.g. 90s, 30m, 2h "
                               + "(default: \(UpdateSettings.Defaults.deadline)).", valueName: "duration"))
    var deadline: String?

    @Option(help: ArgumentHelp("Most bytes of manifest read, after decoding (default: \(Updater.defaultMaxManifestSize)).",
                               valueName: "bytes"))
    var maxManifestSize: Int?

    @Option(help: "Tries per transfer; timeouts and 5xx are retried with backoff (default: \(UpdateSettings.Defaults.attempts)).")
    var attempts: Int?

    @Option(help: "Most entries a bundle may hold (default: \(ExtractionLimits().maxEntries)).")
    var maxEntries: Int?

    @Option(help: "Most bytes a bundle may expand to (default: \(ExtractionLimits().maxTotalUncompressedSize)).")
    var maxSize: Int?

    @Option(help: "Highest compression ratio an entry may have (default: \(Int(ExtractionLimits().maxCompressionRatio))).")
    var maxRatio: Double?

    @Flag(help: "Exit at once (status 75), instead of waiting, when another pkgctl holds the store.")
    var noWait = false

    @Flag(help: "Print a machine-readable summary on stdout.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    @Flag(name: .customLong("no-report"), help: ArgumentHelp(
        "Do not report package outcomes to the origin (by default a GET it logs; the device id is never sent)."))
    var noReport = false

    @Option(name: .customLong("report-url"), help: ArgumentHelp(
        "Where outcome reports go (default: report/v1 beside the manifest).", valueName: "url"))
    var reportURL: String?

    @Option(name: .customLong("activate-window"), help: ArgumentHelp(
        "Local time HH:MM-HH:MM in which a new version may become active (repeatable; may cross midnight). Outside "
            + "every window a new version is installed and waits (pending); a critical release activates at once.",
        valueName: "window"))
    var activateWindows: [String] = []

    @Option(help: ArgumentHelp(
        "The host app's version (e.g. 3.1.0): each package installs its newest release whose runtime range holds it; "
            + "an active version outside its range is left at once.", valueName: "version"))
    var runtime: String?

    @Option(name: .customLong("prefetch-time-limit"), help: ArgumentHelp(
        "Seconds the prefetch lists of the releases a run activates may take together; 0: no prefetch "
            + "(default: \(DecimalText.tenths(UpdateSettings.Defaults.prefetchTimeLimit, droppingZeroTenth: true))).",
        valueName: "seconds"))
    var prefetchTimeLimit: Double?

    @Option(name: .customLong("prefetch-upstream"), help: ArgumentHelp(
        "Base URL prefetches go to instead of https://HOST, as serve's --upstream (they trust --ca-file).",
        valueName: "url"))
    var prefetchUpstream: String?

    @Option(name: .customLong("accept-images"), help: ArgumentHelp(
        "Image variants this device's web engine decodes (avif, webp, comma-separated): where a release has one "
            + "for a PNG or JPEG, only the variant is downloaded and installed.", valueName: "avif,webp"))
    var acceptImages: String?

    @Flag(name: .customLong("print-device-id"), help: ArgumentHelp(
        "Print this device's id (the one staged rollouts and `pkgctl rollout --devices` use) and exit."))
    var printDeviceID = false

    /// The settings this command line gives, above the environment and the config file.
    private var flags: FlagSettings {
        var flags = FlagSettings()
        flags.set("update.manifest", manifest)
        flags.set("update.ca-file", caFile)
        flags.set("update.trusted-key", trustedKeys)
        flags.set("update.trusted-root", trustedRoot)
        flags.set("update.timestamp-key", timestampKeys)
        flags.set("update.threshold", threshold)
        flags.set("update.min-rate", minRate)
        flags.set("update.deadline", deadline)
        flags.set("update.max-manifest-size", maxManifestSize)
        flags.set("update.health-check", healthCheck)
        flags.set("update.health-timeout", healthTimeout)
        flags.set("update.confirm-after-launches", confirmAfterLaunches)
        flags.set("update.revert-after-bad-launches", revertAfterBadLaunches)
        flags.set("update.device-id", deviceID)
        flags.set("update.jitter", jitter)
        flags.set("update.keep", keep)
        flags.set("update.connect-timeout", connectTimeout)
        flags.set("update.stall-timeout", stallTimeout)
        flags.set("update.attempts", attempts)
        flags.set("update.max-entries", maxEntries)
        flags.set("update.max-size", maxSize)
        flags.set("update.max-ratio", maxRatio)
        flags.set("update.no-wait", noWait)
        flags.set("update.json", json)
        flags.set("update.quiet", quiet)
        flags.set("update.report", off: noReport)
        flags.set("update.report-url", reportURL)
        flags.set("update.activate-window", activateWindows)
        flags.set("update.runtime", runtime)
        flags.set("update.prefetch-time-limit", prefetchTimeLimit)
        flags.set("update.prefetch-upstream", prefetchUpstream)
        flags.set("update.accept-images", acceptImages)
        return flags
    }

    func run() async throws {
        let layers = try await store.layers(flags: flags, json: json)
        // A service may ask for JSON in its config file; a refusal of the settings is then JSON too.
        let json = self.json || ((try? layers.boolean("update.json")) ?? nil) == true
        if printDeviceID {
            let id = try reportingErrors(json: json) {
                if let given = try layers.string("update.device-id") { return given }
                let packageStore = try store.packageStore(layers)
                if FileManager.default.fileExists(atPath: packageStore.layout.deviceID) { return try packageStore.deviceID() }
                // Made under the store's lock, so a concurrent update cannot make another.
                return try packageStore.locked(wait: true, onWait: { _ in }) { try packageStore.deviceID() }
            }
            if json { try Output.printJSON(["deviceId": id]) } else { print(id) }
            return
        }
        let (packageStore, settings, trust, root) = try reportingErrors(json: json) {
            let settings = try UpdateSettings(layers)
            let trust = TrustPolicy(trustedKeys: try settings.trustedKeys.map(TrustedKey.init(file:)),
                                    threshold: settings.threshold,
                                    timestampKeys: try settings.timestampKeys.map(TrustedKey.init(file:)))
            return (try store.packageStore(layers), settings, trust, try settings.trustedRoot.map(TrustedRoot.init(file:)))
        }
        var updater = Updater(
            store: packageStore, manifestURL: settings.manifest,
            transfer: TransferOptions(caFile: settings.caFile, connectTimeout: settings.connectTimeout,
                                      stallTimeout: settings.stallTimeout, minimumRate: settings.minRate,
                                      maxAttempts: settings.attempts),
            limits: settings.limits,
            keep: settings.keep,
            trust: trust,
            activation: settings.activation,
            deviceID: settings.deviceID, jitter: settings.jitter, maxManifestSize: settings.maxManifestSize,
            timeLimit: settings.deadline,
            reporting: settings.report ? OutcomeReporting(url: settings.reportURL, client: Pkgctl.configuration.version)
                                       : nil,
            activationWindows: settings.activateWindows, runtime: settings.runtime,
            prefetch: settings.prefetchTimeLimit > 0
                ? UpdatePrefetch(resolver: ResolverConfiguration(upstream: settings.prefetchUpstream, caFile: settings.caFile),
                                 timeLimit: settings.prefetchTimeLimit)
                : nil,
            trustedRoot: root)
        updater.acceptImages = settings.acceptImages
        let quiet = settings.quiet
        let bar = (quiet || json || !Output.stderrIsTerminal) ? nil : ProgressBar()
        let report = try reportingErrors(json: json) {
            try updater.run(
                wait: !settings.noWait,
                onWait: { message in if !quiet { Output.printError(message) } },
                progress: { event in
                    bar?.handle(event)  // clears the bar before a fallback's line
                    if case .fellBack(_, _, let reason) = event, !quiet { Output.printError(reason) }
                    if case .prefetched(let name, let version, let results) = event {
                        for result in results {
                            guard case .failed(let error) = result.outcome else { continue }
                            Output.printError("\(name) \(version): prefetch of \(result.url.escapedForMessage) failed: "
                                              + error.message)
                        }
                        if !quiet, !json { print("\(name) \(version): " + PrefetchCommand.summary(results)) }
                    }
                })
        }
        if json {
            try Output.printJSON(report)
        } else if !quiet {
            for line in UpdateSummary.lines(report) { print(line) }
        }
        for failure in report.reverted + report.packages where failure.error != nil {
            Output.printError(failure.error ?? failure.name)
        }
        if !report.succeeded { throw ExitCode(ExitStatus.failure) }
    }
}
