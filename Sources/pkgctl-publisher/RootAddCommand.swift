import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RootAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add the signed root in FILE to OUT_DIR as roots/N.json, for publish to ship.",
        discussion: """
            Refused unless the root verifies as devices will verify it: version N follows the newest \
            root in OUT_DIR (1 when there is none) and is signed by a threshold of its root keys and \
            of the previous root's. From then on, pack, rollout, revoke, promote, sign and timestamp in \
            OUT_DIR sign only with keys the root lists for the role.

            Examples:
              # Add root 2, then ship it with the release it allows:
              pkgctl root add root-2.json out && pkgctl publish out /srv/pkgctl
            """)

    @Argument(help: ArgumentHelp("The signed root file.", valueName: "file"))
    var file: String

    @Argument(help: ArgumentHelp("The publishing folder.", valueName: "out-dir"))
    var outDir: String

    func run() throws {
        let path = try reportingErrors { try PublishingFolder(outDir).addRoot(try RootDraft(file: file)) }
        print(path)
    }
}
