import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RootSignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Add one root key's signature to the root in FILE.",
        discussion: """
            Run once per root key, on the machine that keeps it. The key must be a root key of \
            FILE's root or, with --previous, of the root it follows.

            Examples:
              # Root 2 signed by root 1's key (and, run again, by its own new root key):
              pkgctl root sign root-2.json --key old-root.key --previous out/roots/1.json
            """)

    @Argument(help: ArgumentHelp("The root file to sign, in place.", valueName: "file"))
    var file: String

    @Option(help: ArgumentHelp("Private root key file.", valueName: "keyfile"))
    var key: String

    @Option(help: ArgumentHelp("The root FILE follows, whose root keys must sign it too.", valueName: "previous"))
    var previous: String?

    func run() throws {
        let draft = try reportingErrors {
            var draft = try RootDraft(file: file)
            try draft.sign(with: try SigningKey(file: key), previous: try previous.map { try RootDraft(file: $0).document })
            try draft.write(to: file)
            return draft
        }
        RootShowCommand.describe(draft, path: file)
    }
}
