import ArgumentParser
import PkgCore

struct RolloutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollout",
        abstract: "Change the share of devices that install a package's newest version.",
        discussion: """
            Devices are chosen by a hash of their id and a salt new with each release; raising the \
            percentage only adds devices. 100 publishes to every device. Lowering needs --force, and \
            devices that installed the version keep it.
            """)

    @Argument(help: ArgumentHelp("Directory holding manifest.json.", valueName: "out-dir"))
    var out: String

    @Argument(help: "Package name.")
    var name: String

    @Argument(help: ArgumentHelp("Share of devices, 0 to 100.", valueName: "percent"))
    var percent: Double

    @Flag(help: "Allow lowering the percentage.")
    var force = false

    @OptionGroup var signing: SigningOptions

    func validate() throws {
        guard (0...100).contains(percent) else {
            throw ValidationError("percent must be 0 to 100 (got \(DecimalText.tenths(percent, droppingZeroTenth: true)))")
        }
    }

    func run() throws {
        let entry = try reportingErrors {
            try Publisher(outputDirectory: out).setRollout(name: name, percent: percent, force: force,
                                                           signer: try signing.signer())
        }
        let share = entry.rollout.map { $0.share + " of devices" } ?? "every device"
        print("\(name) \(entry.version): \(share)")
    }
}
