import ArgumentParser
import PkgCore

struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc", abstract: "Remove retained versions beyond the newest N (never the active one), and the objects unfinished delta installs left.")

    @OptionGroup var store: StoreOptions

    @Option(help: "Installed versions to keep per package.")
    var keep: Int = 2

    func validate() throws {
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1") }
    }

    func run() async throws {
        let store = try await self.store.packageStore()
        let removed = try reportingErrors {
            return try store.locked(onWait: Output.printError) {
                try store.recover()
                try store.removeObjects()
                return try store.collectGarbage(keep: keep)
            }
        }
        for item in removed { print("removed \(item.name) \(item.version)") }
    }
}
