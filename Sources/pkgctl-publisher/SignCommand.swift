import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

struct SignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sign",
        abstract: "Re-sign a manifest in place: a new sequence, a new expiry, and exactly the given keys' signatures.",
        discussion: """
            Use it to refresh the expiry before devices refuse the manifest, or to rotate keys: sign with \
            the old and the new key while devices move to the new one, then with the new one alone.

            Prints the manifest's new sequence and expiry (default: 30 days). A sequence at 2^53 - 1 \
            cannot be raised and is refused (exit 1).

            Examples:
              # Refresh the expiry for another 90 days:
              pkgctl sign out/manifest.json --key release.key --expires-in 90
              # Rotate keys: sign with the old and the new key while devices move:
              pkgctl sign out/manifest.json --key old.key --key new.key
            """)

    @Argument(help: ArgumentHelp("The manifest.json to sign.", valueName: "manifest"))
    var manifest: String

    @Option(name: .customLong("key"), parsing: .upToNextOption,
            help: ArgumentHelp("Private key file (repeatable).", valueName: "keyfile"))
    var keys: [String]

    @OptionGroup var validity: SigningValidity

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("give at least one --key") }
        guard PathName.lastComponent(manifest) == "manifest.json" else {
            throw ValidationError("sign re-signs a publishing folder's manifest.json (got '\(String(manifest.prefix(200)))')")
        }
    }

    func run() throws {
        let signed = try reportingErrors {
            let signer = try validity.signer(keys: keys)
            return try signer.resign(PublishingFolder(PathName.parent(manifest)))
        }
        print("\(manifest)  sequence \(signed.sequence ?? 0)  expires \(signed.expires.map(InternetDate.format) ?? "-")")
    }
}
