import ArgumentParser
import PkgCore

struct RollbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Make the version installed before the active one active again.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name.")
    var name: String

    func run() throws {
        let switched = try reportingErrors {
            let lock = try StoreLock(layout: store.store.layout, onWait: Output.printError)
            defer { withExtendedLifetime(lock) {} }
            return try store.store.rollback(name)
        }
        print("\(name): \(switched.from) -> \(switched.to)")
    }
}
