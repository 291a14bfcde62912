import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

struct RootShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print a root's version, expiry, roles and the keys that signed it.",
        discussion: """
            Reads a root file (one a root command wrote, or roots/N.json of a publishing folder) and \
            prints one line for the root, one per role with its threshold and key ids, and the ids of \
            the keys that signed it so far; the signatures are not verified here (root add does).

            Examples:
              # What root 2 says, and who signed it:
              pkgctl root show out/roots/2.json
            """)

    @Argument(help: ArgumentHelp("The root file.", valueName: "file"))
    var file: String

    func run() throws {
        let draft = try reportingErrors { try RootDraft(file: file) }
        Self.describe(draft, path: file)
    }

    /// Prints `draft`'s fields, one role a line, and who signed it (ids, not verified).
    static func describe(_ draft: RootDraft, path: String) {
        let document = draft.document
        print("\(path)  root \(document.version)  expires \(InternetDate.format(document.expires))")
        for name in RootDocument.roleNames {
            guard let role = document.roles[name] else { continue }
            print("  \(name): \(role.threshold) of \(role.keyids.map { String($0.prefix(16)) }.joined(separator: ", "))")
        }
        let signers = draft.signerIDs.map { String($0.prefix(16)) }
        print("  signed by: \(signers.isEmpty ? "none yet (pkgctl root sign)" : signers.joined(separator: ", "))")
    }
}
