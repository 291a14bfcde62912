import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct PromoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Publish a release of one channel (staging) on another (production) byte for byte, never rebuilt.",
        discussion: """
            Copies NAME VERSION's zip, index and objects from FROM_DIR's manifest into TO_DIR under their content \
            names, checking every hash, and lists the release in TO_DIR/manifest.json with TO_DIR's own revocations, \
            tree deltas from TO_DIR's earlier versions, and --rollout; signed with --sign (TO_DIR's keys). A version \
            TO_DIR already names with other bytes is refused.

            Prints the release, its zip and the number of deltas written. Exits 1, changing nothing, when a \
            file does not match FROM_DIR's manifest or the version is refused.

            Examples:
              # Publish staging's demo 1.4.0 on production, to 10 % of devices, signed:
              pkgctl promote /srv/pkgctl/staging /srv/pkgctl/production demo 1.4.0 \\
                --rollout 10 --sign /etc/pkgctl/keys/release.key
              # Promote it to every device of an unsigned channel:
              pkgctl promote staging production demo 1.4.0
            """)

    @Argument(help: ArgumentHelp("The channel the release was tested on (its publishing folder).", valueName: "from-dir"))
    var from: String

    @Argument(help: ArgumentHelp("The channel to publish it on.", valueName: "to-dir"))
    var to: String

    @Argument(help: "Package name.")
    var name: String

    @Argument(help: "The version to promote.")
    var version: String

    @Option(help: ArgumentHelp("Publish to this percentage of devices only; the others keep the version named before.",
                               valueName: "percent"))
    var rollout: Double?

    @Option(help: ArgumentHelp("The runtime range of the release, when FROM_DIR lists the version for several.",
                               valueName: "range"))
    var runtime: String?

    @Flag(help: "Replace a release still rolling out, or one no device can have yet (at 0 % without pins).")
    var force = false

    @Flag(help: "Accept a version that sorts below the one TO_DIR names now: devices install it as a downgrade.")
    var allowDowngrade = false

    @Option(name: .customLong("delta-from"), help: "Write tree deltas from this many earlier versions of TO_DIR.")
    var deltaFrom = 3

    @OptionGroup var signing: SigningOptions

    func validate() throws {
        guard (0...100).contains(deltaFrom) else { throw ValidationError("--delta-from must be 0 to 100") }
        _ = try RuntimeRangeArgument.parse(runtime, package: name)
    }

    func run() throws {
        let entry = try reportingErrors {
            try PublishingFolder(to).promote(
                name: name, version: version, from: from, runtime: try RuntimeRangeArgument.parse(runtime, package: name),
                rolloutPercent: rollout, force: force, allowDowngrade: allowDowngrade, deltaFrom: deltaFrom, signer: try signing.signer())
        }
        let share = entry.rollout.map { " to \($0.share) of devices" } ?? ""
        print("\(name) \(version) promoted from \(from) to \(to)\(share): \(entry.url), \(entry.deltas.count) deltas")
    }
}
