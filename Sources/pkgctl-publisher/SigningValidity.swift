import ArgumentParser
import FoundationEssentials
import PkgCore
import PkgPublishing

/// `--expires-in`, shared by `sign` and ``SigningOptions``.
struct SigningValidity: ParsableArguments {
    @Option(name: .customLong("expires-in"),
            help: ArgumentHelp("Days until devices stop accepting the signed manifest (default 30).", valueName: "days"))
    var expiresIn: Int = Int(ManifestSigner.defaultValidity / 86_400)

    func validate() throws {
        guard expiresIn >= 1 else { throw ValidationError("--expires-in must be at least 1 day") }
    }

    func signer(keys: [String]) throws -> ManifestSigner {
        ManifestSigner(keys: try keys.map(SigningKey.init(file:)), validity: TimeInterval(expiresIn) * 86_400)
    }
}
