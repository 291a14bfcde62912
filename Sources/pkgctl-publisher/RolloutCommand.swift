import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Change the share of devices that install a package's newest version, or pin named devices to it.",
        discussion: """
            Devices are chosen by a hash of their id and a salt new with each release; raising the \
            percentage only adds devices. 100 publishes to every device. Lowering needs --force, and \
            devices that installed the version keep it. --devices FILE (one device id a line, as \
            pkgctl update --print-device-id prints it; # starts a comment) pins those devices to the \
            release whatever the percentage; the manifest holds salted hashes of the ids, not the ids. \
            An empty file removes the pins.

            Prints the share: "demo 2.0.0: 50 % of devices", or "every device" at 100, which ends the \
            rollout. With neither a percent nor --devices it changes nothing and prints the current \
            share, the pins and what the other devices get. A signed manifest needs --sign to stay \
            signed; a revoked version is refused.

            Examples:
              # Where demo's rollout stands:
              pkgctl rollout out demo
              # Offer demo's newest version to a quarter of the devices:
              pkgctl rollout out demo 25 --sign /etc/pkgctl/keys/release.key
              # Pin the QA devices to it, whatever the share:
              pkgctl rollout out demo --devices qa.txt --sign /etc/pkgctl/keys/release.key
              # Back down to 5 % (devices that installed it keep it):
              pkgctl rollout out demo 5 --force --sign /etc/pkgctl/keys/release.key
            """)

    @Argument(help: ArgumentHelp("Directory holding manifest.json.", valueName: "out-dir"))
    var out: String

    @Argument(help: "Package name.")
    var name: String

    @Argument(help: ArgumentHelp("Share of devices, 0 to 100 (default: unchanged; with neither it nor --devices, "
                                 + "the current share is printed).", valueName: "percent"))
    var percent: Double?

    @Option(help: ArgumentHelp("File of device ids to pin to the release, one a line.", valueName: "file"))
    var devices: String?

    @Option(help: RuntimeRangeArgument.help)
    var runtime: String?

    @Flag(help: "Allow lowering the percentage.")
    var force = false

    @OptionGroup var signing: SigningOptions

    func validate() throws {
        if let percent, !(0...100).contains(percent) {
            throw ValidationError("percent must be 0 to 100 (got \(DecimalText.tenths(percent, droppingZeroTenth: true)))")
        }
        _ = try RuntimeRangeArgument.parse(runtime, package: name)
    }

    func run() throws {
        guard percent != nil || devices != nil else { return try printCurrentShare() }
        let pinned = try devices.map { file in try reportingErrors { try DeviceList.read(file) } }
        let entry = try reportingErrors {
            try PublishingFolder(out).setRollout(name: name, runtime: try RuntimeRangeArgument.parse(runtime, package: name),
                                                           percent: percent, devices: pinned, force: force,
                                                           signer: try signing.signer())
        }
        print("\(name) \(entry.version): \(Self.share(of: entry))")
    }

    /// `rollout OUT_DIR NAME` alone: what the manifest says now, changing nothing.
    private func printCurrentShare() throws {
        let entry = try reportingErrors {
            try PublishingFolder(out).currentRelease(of: name, runtime: try RuntimeRangeArgument.parse(runtime, package: name))
        }
        var line = "\(name) \(entry.version): \(Self.share(of: entry))"
        if entry.revoked.contains(entry.version) {
            line += " (revoked: no device installs it)"
        } else if let rollout = entry.rollout {
            line += "; the other devices " + (rollout.previous.map { "get \($0.version)" } ?? "keep what they have")
        }
        print(line)
    }

    /// "50 % of devices, and 2 pinned devices", or "every device".
    private static func share(of entry: ManifestEntry) -> String {
        Rollout.audience(percent: entry.rollout?.percent, pinned: entry.rollout?.devices?.count)
    }
}
