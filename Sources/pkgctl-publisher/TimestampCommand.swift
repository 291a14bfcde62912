import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

struct TimestampCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timestamp",
        abstract: "Write OUT_DIR/timestamp.json: the online key's word that OUT_DIR/manifest.json is current.",
        discussion: """
            For devices that run update --timestamp-key: the content key signs manifest.json (offline, with a \
            long --expires-in), and this short-lived statement, renewed by a cron job with the online key, \
            keeps it fresh. Run it after every signing of manifest.json, and upload timestamp.json after \
            manifest.json. The timestamp key can sign nothing else.

            Prints the manifest's sequence and the statement's expiry (default: 1 day). Refuses an \
            unsigned manifest.json (exit 1).

            Examples:
              # Daily from cron on the publishing host, then publish:
              pkgctl timestamp /srv/pkgctl/out --key /etc/pkgctl/keys/online.key
              # A statement valid for 2 days:
              pkgctl timestamp out --key online.key --expires-in 2
            """)

    @Argument(help: ArgumentHelp("The directory holding the signed manifest.json.", valueName: "out-dir"))
    var outDir: String

    @Option(name: .customLong("key"), parsing: .upToNextOption,
            help: ArgumentHelp("Private timestamp key file (repeatable).", valueName: "keyfile"))
    var keys: [String]

    @Option(name: .customLong("expires-in"),
            help: ArgumentHelp("Days until devices stop accepting the timestamp (default 1).", valueName: "days"))
    var expiresIn: Int = Int(Timestamp.defaultValidity / 86_400)

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("give at least one --key") }
        guard expiresIn >= 1 else { throw ValidationError("--expires-in must be at least 1 day") }
    }

    func run() throws {
        let timestamp = try reportingErrors {
            let signer = TimestampSigner(keys: try keys.map(SigningKey.init(file:)), validity: TimeInterval(expiresIn) * 86_400)
            return try signer.write(in: PublishingFolder(outDir))
        }
        print("\(outDir)/\(Timestamp.fileName)  manifest sequence \(timestamp.manifestSequence)  "
              + "expires \(InternetDate.format(timestamp.expires))")
    }
}
