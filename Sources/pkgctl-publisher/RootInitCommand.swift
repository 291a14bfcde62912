import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RootInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write the first root of trust (version 1), unsigned, to FILE.",
        discussion: """
            Give each role its keys; a threshold defaults to 1. Sign the file with root sign (a \
            threshold of the root keys), add it to the publishing folder with root add, and give \
            devices a copy as update --trusted-root. Refuses an existing FILE.

            Examples:
              # Two root keys, both needed to sign a root; one content key:
              pkgctl root init root-1.json --root-key a.pub --root-key b.pub --root-threshold 2 --content-key release.pub
            """)

    @Argument(help: ArgumentHelp("The root file to write.", valueName: "file"))
    var file: String

    @OptionGroup var roles: RootRoleOptions

    func validate() throws {
        guard !roles.rootKeys.isEmpty, !roles.contentKeys.isEmpty else {
            throw ValidationError("a root needs --root-key and --content-key")
        }
    }

    func run() throws {
        let draft = try reportingErrors {
            guard !FileSystem.exists(file) else { throw PkgError(.invalidArgument, "\(file) exists; root init writes a new root") }
            let draft = try RootDraft(document: try roles.document(version: 1, previous: nil))
            try draft.write(to: file)
            return draft
        }
        RootShowCommand.describe(draft, path: file)
    }
}
