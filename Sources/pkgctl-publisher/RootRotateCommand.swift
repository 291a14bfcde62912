import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RootRotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Write the root after PREVIOUS to --out, unsigned: the roles given replace its own.",
        discussion: """
            Roles not given keep PREVIOUS's keys. The new root must be signed by a threshold of \
            PREVIOUS's root keys and of its own (root sign --previous), then added with root add. A \
            stolen content key is rotated out this way: devices drop its sequence floor with it.

            Examples:
              # Root 2: a new content key, the other roles as root 1 has them:
              pkgctl root rotate out/roots/1.json --out root-2.json --content-key new.pub
            """)

    @Argument(help: ArgumentHelp("The root it follows (roots/N.json).", valueName: "previous"))
    var previous: String

    @Option(help: ArgumentHelp("The root file to write.", valueName: "file"))
    var out: String

    @OptionGroup var roles: RootRoleOptions

    func run() throws {
        let draft = try reportingErrors {
            guard !FileSystem.exists(out) else { throw PkgError(.invalidArgument, "\(out) exists; root rotate writes a new root") }
            let before = try RootDraft(file: previous).document
            let draft = try RootDraft(document: try roles.document(version: before.version + 1, previous: before))
            try draft.write(to: out)
            return draft
        }
        RootShowCommand.describe(draft, path: out)
    }
}
