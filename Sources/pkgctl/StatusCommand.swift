import ArgumentParser
import PkgCore

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each package's active version, its directory and retained versions.")

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print {\"packages\":[{\"name\",\"version\",\"path\",\"retained\",\"routes\"}]} on stdout.")
    var json = false

    private struct Listing: Encodable {
        struct Package: Encodable {
            var name: String
            var version: String
            var path: String
            var retained: [String]
            var routes: [String]
        }
        var packages: [Package]
    }

    func run() throws {
        let packages = try reportingErrors { try store.store.activePackages() }
        if json {
            try Output.printJSON(Listing(packages: packages.map {
                .init(name: $0.name, version: $0.version, path: $0.directory,
                      retained: $0.retainedVersions, routes: $0.routes)
            }))
            return
        }
        if packages.isEmpty { print("no packages installed under \(store.store.layout.root)") }
        for package in packages {
            print("\(package.name) \(package.version)  \(package.directory)")
            print("  retained: \(package.retainedVersions.joined(separator: ", "))")
        }
    }
}
