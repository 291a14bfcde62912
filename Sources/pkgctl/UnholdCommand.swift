import ArgumentParser
import PkgCore

struct UnholdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unhold",
        abstract: "Let update install a package's held-back versions again.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name.")
    var name: String

    func run() throws {
        let released = try reportingErrors {
            try store.store.locked(onWait: Output.printError) { try store.store.unhold(name) }
        }
        print(released.isEmpty ? "\(name): nothing held" : "\(name): released \(released.joined(separator: ", "))")
    }
}
