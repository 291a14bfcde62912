import PkgCommandLine
import ArgumentParser
import PkgCore
import PkgPublishing

struct RevokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Withdraw a published version: never installed again, and devices running it switch back.",
        discussion: """
            A device running a revoked version switches to its newest retained version that is not revoked. \
            When the revoked version is the one the manifest names, the manifest goes back to the version \
            named before it (kept while it was rolling out).

            Prints the version revoked and the version the manifest names now. A signed manifest needs \
            --sign to stay signed (exit 1 without it).

            Examples:
              # Withdraw demo 2.0.0 from every device:
              pkgctl revoke out demo 2.0.0 --sign /etc/pkgctl/keys/release.key
              # The same on an unsigned channel:
              pkgctl revoke /srv/pkgctl/staging demo 2.0.0
            """)

    @Argument(help: ArgumentHelp("Directory holding manifest.json.", valueName: "out-dir"))
    var out: String

    @Argument(help: "Package name.")
    var name: String

    @Argument(help: "The version to withdraw.")
    var version: String

    @OptionGroup var signing: SigningOptions

    func run() throws {
        let entry = try reportingErrors {
            try PublishingFolder(out).revoke(name: name, version: version, signer: try signing.signer())
        }
        print("\(name): \(version) revoked; the manifest names \(entry.version)")
    }
}
