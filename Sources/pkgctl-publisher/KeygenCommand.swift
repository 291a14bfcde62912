import PkgCommandLine
import ArgumentParser
import PkgCore

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing manifests: DIR/NAME.key (mode 0600) and DIR/NAME.pub.",
        discussion: """
            The private key is PKCS#8 PEM (mode 0600), the public key SPKI PEM: what \
            openssl genpkey -algorithm ed25519 and openssl pkey -pubout read and write. \
            Prints the key id, the hex SHA-256 of the raw public key.

            Refuses to overwrite an existing key (exit 1). Keep the .key off devices and off the origin; \
            give devices the .pub (update --trusted-key).

            Examples:
              # The release key, in a folder only the publisher can read:
              pkgctl keygen --out /etc/pkgctl/keys
              # An online key for timestamp, beside it:
              pkgctl keygen --out /etc/pkgctl/keys --name online
            """)

    @Option(help: ArgumentHelp("Directory receiving the key files.", valueName: "dir"))
    var out: String

    @Option(help: "Base name of the key files.")
    var name: String = "release"

    func run() throws {
        let key = try reportingErrors { try SigningKey.generate(in: out, name: name) }
        print(key.publicKey.id)
    }
}
