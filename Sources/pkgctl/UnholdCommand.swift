import ArgumentParser
import PkgCore

struct UnholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unhold",
        abstract: "Let update install a package's held-back versions again.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name.")
    var name: String

    func run() async throws {
        let store = try await self.store.packageStore()
        let released = try reportingErrors {
            try store.locked(onWait: Output.printError) { try store.unhold(name) }
        }
        print(released.isEmpty ? "\(name): nothing held" : "\(name): released \(released.joined(separator: ", "))")
    }
}
