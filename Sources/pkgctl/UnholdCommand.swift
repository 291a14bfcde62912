import PkgCommandLine
import ArgumentParser
import PkgCore

struct UnholdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unhold",
        abstract: "Let update install a package's held-back versions again.",
        discussion: """
            Lifts every hold on NAME (set by rollback or by a failed health check) and forgets the \
            manifest's validators (ETag, Last-Modified), so the next update reads the manifest again and \
            installs the version it names, held or not. Prints the versions released, or that nothing was held.

            Examples:
              # Allow demo's held version again, and install it now:
              pkgctl unhold demo
              pkgctl update
            """)

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
