import PkgCommandLine
import ArgumentParser
import PkgCore

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash installed files against the index written at install.",
        discussion: """
            Re-hashes every file of the installed versions of NAME (default: every package) against the \
            file index written when it was installed. Prints one line per version, ok or differs; a \
            version installed with update --accept-images says which image representation it holds.

            Exits 1 and lists changed, missing and unexpected files when any version differs.

            Examples:
              # Check every installed package:
              pkgctl verify
              # Check demo in the packaged service's store:
              pkgctl verify --root /var/lib/pkgctl demo
            """)

    @OptionGroup var store: StoreOptions

    @Argument(help: "Package name (default: every package).")
    var name: String?

    func run() async throws {
        let store = try await self.store.packageStore(writes: false)
        let reports = try reportingErrors { try store.verify(name) }
        for report in reports {
            // Which representation of its images the version holds (update --accept-images).
            let held = report.imageVariants.sorted { $0.key < $1.key }
                .map { "\($0.value) image\($0.value == 1 ? "" : "s") as \($0.key.uppercased())" }
            let variants = held.isEmpty ? "" : " (holds " + held.joined(separator: ", ") + ")"
            if report.isIntact {
                print("\(report.name) \(report.version): ok" + variants)
                continue
            }
            print("\(report.name) \(report.version): differs from its index" + variants)
            for path in report.changed { print("  changed: \(path)") }
            for path in report.missing { print("  missing: \(path)") }
            for path in report.unexpected { print("  unexpected: \(path)") }
        }
        if reports.contains(where: { !$0.isIntact }) { throw ExitCode.failure }
    }
}
