import ArgumentParser
import PkgCore

struct UnholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unhold",
        abstract: "Let update install a package's held-back versions again.",
        discussion: "Held or not, the manifest's validators are forgotten: the next update reads the manifest in full.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name.")
    var name: String

    func run() async throws {
        let store = try await self.store.packageStore()
        let released = try reportingErrors {
            try store.locked(onWait: Output.printError) { try store.unhold(name) }
        }
        let lifted = released.isEmpty ? "no version was held" : "released \(released.joined(separator: ", "))"
        print("\(name): \(lifted); the next update reads the manifest again")
    }
}
