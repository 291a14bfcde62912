import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

/// `--sign` and `--expires-in`, shared by the commands that change a published manifest.
struct SigningOptions: ParsableArguments {
    @Option(name: .customLong("sign"),
            help: ArgumentHelp("Private key to sign manifest.json with (repeatable); needed when it is signed.",
                               valueName: "keyfile"))
    var keys: [String] = []

    @OptionGroup var validity: SigningValidity

    /// The signer for `--sign`, nil without it.
    func signer() throws -> ManifestSigner? {
        keys.isEmpty ? nil : try validity.signer(keys: keys)
    }
}
