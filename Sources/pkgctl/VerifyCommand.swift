import ArgumentParser
import PkgCore

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash installed files against the index written at install.",
        discussion: "Exits 1 and lists changed, missing and unexpected files when any version differs.")

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name (default: every package).")
    var name: String?

    func run() async throws {
        let store = try await self.store.packageStore()
        let reports = try reportingErrors { try store.verify(name) }
        for report in reports {
            if report.isIntact {
                print("\(report.name) \(report.version): ok")
                continue
            }
            print("\(report.name) \(report.version): differs from its index")
            for path in report.changed { print("  changed: \(path)") }
            for path in report.missing { print("  missing: \(path)") }
            for path in report.unexpected { print("  unexpected: \(path)") }
        }
        if reports.contains(where: { !$0.isIntact }) { throw ExitCode.failure }
    }
}
