import ArgumentParser
import PkgCore

struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair for signing manifests: DIR/NAME.key (mode 0600) and DIR/NAME.pub.",
        discussion: "Prints the key id. Refuses to overwrite an existing key. Keep the .key off devices; give them the .pub.")

    @Option(help: ArgumentHelp("Directory receiving the key files.", valueName: "dir"))
    var out: String

    @Option(help: "Base name of the key files.")
    var name: String = "release"

    func run() throws {
        let key = try reportingErrors { try SigningKey.generate(in: out, name: name) }
        print(key.publicKey.id)
    }
}
