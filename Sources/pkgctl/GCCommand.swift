import PkgCommandLine
import ArgumentParser
import PkgCore

struct GCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gc", abstract: "Remove retained versions beyond the newest N (never the active one), and the objects unfinished delta installs left.",
        discussion: """
            Keeps, per package, the N most recently installed good versions: a held version (rolled back, \
            or failed its health check) that is not active does not count, so a known-bad release never \
            pushes out a good fallback; held versions older than the N good ones go too. Never removes the \
            active version, nor the one a pending trial would switch back to. update applies the same rule \
            with its own --keep.

            Prints one line per version removed. Exits 1 when the store cannot be changed.

            Examples:
              # Keep the two newest good versions of each package:
              pkgctl gc
              # Keep three, in the packaged service's store:
              pkgctl gc --root /var/lib/pkgctl --keep 3
            """)

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
