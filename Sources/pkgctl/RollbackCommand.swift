import ArgumentParser
import PkgCore

struct RollbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Make the version installed before the active one active again, and hold back the one it left.",
        discussion: "update will not reinstall the held version while the manifest names it; pkgctl unhold NAME lifts that.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name.")
    var name: String

    func run() async throws {
        let store = try await self.store.packageStore()
        let switched = try reportingErrors {
            try store.locked(onWait: Output.printError) { try store.rollback(name) }
        }
        print("\(name): \(switched.from) -> \(switched.to); \(switched.from) held (pkgctl unhold \(name) to allow it)")
    }
}
