import ArgumentParser
import FoundationEssentials
import PkgCore

struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Install every package whose manifest version differs from the active one.",
        discussion: """
            Exits 0 when no package failed (held, staged and revoked ones do not fail); otherwise prints \
            one line per failed package on stderr and exits 1. A failed package keeps its active version.
            With --trusted-key, only a manifest signed by one of the keys, not expired and not older than \
            the newest one accepted is used; without, the manifest is not authenticated.
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: ArgumentHelp("Manifest URL (http, https or file).", valueName: "url"))
    var manifest: String

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM file of CAs to trust for https.", valueName: "pem"))
    var caFile: String?

    @Option(name: .customLong("trusted-key"),
            help: ArgumentHelp("Public key (.pub) a manifest must be signed by (repeatable).", valueName: "pubfile"))
    var trustedKeys: [String] = []

    @Option(name: .customLong("health-check"), help: ArgumentHelp(
        "Shell command run after each switch, with PKGCTL_PACKAGE, PKGCTL_VERSION, PKGCTL_PATH set; "
            + "failing or timing out switches back and holds the version.", valueName: "cmd"))
    var healthCheck: String?

    @Option(name: .customLong("health-timeout"), help: ArgumentHelp("Seconds the health check may run.", valueName: "seconds"))
    var healthTimeout: Double = 30

    @Option(name: .customLong("device-id"), help: ArgumentHelp(
        "This device's id for staged rollouts (default: a random id made once and kept in the store).", valueName: "id"))
    var deviceID: String?

    @Option(help: ArgumentHelp("Wait a random 0 to SECONDS before the check, so a fleet does not poll in step.",
                               valueName: "seconds"))
    var jitter: Double = 0

    @Option(help: "Installed versions to keep per package (the active one always stays).")
    var keep: Int = 2

    @Option(help: "Seconds to wait for a connection.")
    var connectTimeout: Int = 10

    @Option(help: "Seconds a transfer may stall before it is retried.")
    var stallTimeout: Int = 30

    @Option(help: "Tries per transfer (timeouts and 5xx are retried with backoff).")
    var attempts: Int = 4

    @Option(help: "Most entries a bundle may hold.")
    var maxEntries: Int = ExtractionLimits().maxEntries

    @Option(help: "Most bytes a bundle may expand to.")
    var maxSize: UInt64 = ExtractionLimits().maxTotalUncompressedSize

    @Option(help: "Highest compression ratio an entry may have.")
    var maxRatio: Double = ExtractionLimits().maxCompressionRatio

    @Flag(help: "Exit at once, instead of waiting, when another pkgctl holds the store.")
    var noWait = false

    @Flag(help: "Print a machine-readable summary on stdout.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print only errors.")
    var quiet = false

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
        guard connectTimeout >= 1, stallTimeout >= 1 else { throw ValidationError("timeouts must be at least 1 second") }
        guard maxEntries >= 1, maxSize >= 1, maxRatio >= 1 else { throw ValidationError("limits must be positive") }
        guard healthTimeout > 0 else { throw ValidationError("--health-timeout must be positive") }
        guard (0...86_400).contains(jitter) else { throw ValidationError("--jitter must be 0 to 86400 seconds") }
        if let deviceID, deviceID.isEmpty || deviceID.utf8.count > 256 {
            throw ValidationError("--device-id must be 1 to 256 bytes")
        }
    }

    func run() throws {
        let keys = try reportingErrors { try trustedKeys.map(TrustedKey.init(file:)) }
        let updater = Updater(
            store: store.store, manifestURL: manifest,
            transfer: TransferOptions(caFile: caFile, connectTimeout: connectTimeout,
                                      stallTimeout: stallTimeout, maxAttempts: attempts),
            limits: ExtractionLimits(maxEntries: maxEntries, maxTotalUncompressedSize: maxSize,
                                     maxCompressionRatio: maxRatio),
            keep: keep,
            trust: TrustPolicy(trustedKeys: keys),
            activation: healthCheck.map { .healthCheck(HealthCheck(command: $0, timeout: healthTimeout)) } ?? .immediate,
            deviceID: deviceID, jitter: jitter)
        let bar = (quiet || json || !Output.stderrIsTerminal) ? nil : ProgressBar()
        let report = try reportingErrors {
            try updater.run(
                wait: !noWait,
                onWait: { message in if !quiet { Output.printError(message) } },
                progress: { event in bar?.handle(event) })
        }
        if json {
            try Output.printJSON(report)
        } else if !quiet {
            printSummary(report)
        }
        for failure in report.reverted + report.packages where failure.error != nil {
            Output.printError(failure.error ?? failure.name)
        }
        if !report.succeeded { throw ExitCode.failure }
    }

    private func printSummary(_ report: UpdateReport) {
        if report.manifest == .notModified, report.reverted.isEmpty {
            print("manifest not modified; nothing to do")
            return
        }
        for outcome in report.packages {
            switch outcome.action {
            case .installed: print("\(outcome.name): installed \(outcome.to)")
            case .upgraded, .downgraded:
                print("\(outcome.name): \(outcome.from ?? "-") -> \(outcome.to) (\(outcome.action.rawValue))")
            case .republished:
                print("\(outcome.name): \(outcome.from ?? "-") -> \(outcome.to) (re-published; reinstalled)")
            case .unchanged: print("\(outcome.name): \(outcome.to) is up to date")
            case .held:
                print("\(outcome.name): \(outcome.to) is held back; \(outcome.from ?? "no version") stays active "
                      + "(pkgctl unhold \(outcome.name) allows it)")
            case .staged:
                print("\(outcome.name): \(outcome.to) is rolling out; this device is not included yet")
            case .withdrawn:
                print("\(outcome.name): \(outcome.to) is revoked; nothing installed")
            case .revoked:
                print("\(outcome.name): \(outcome.from ?? "-") was revoked; switched back to \(outcome.to)")
            case .failed, .rolledBack: break
            }
        }
        for removed in report.removed { print("removed \(removed)") }
    }
}
