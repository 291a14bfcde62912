import PkgCommandLine
import ArgumentParser
import PkgCore

struct RollbackCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollback", abstract: "Make the version installed before the active one active again, and hold back the one it left.",
        discussion: """
            The switch is atomic (a symlink swap), and the version left is held: update will not reinstall \
            the held version while the manifest names it, and reports it as held instead (exit 0); \
            pkgctl unhold NAME lifts that. Prints what it switched and held.

            Exits 1 when no earlier version of NAME is retained (gc and update --keep decide how many are).

            Examples:
              # Go back from a broken release of demo, and hold that release:
              pkgctl rollback demo
              # The same in the packaged service's store:
              pkgctl rollback --root /var/lib/pkgctl demo
            """)

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
