import ArgumentParser
import PkgCore

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each package's active version, its directory and retained versions.")

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print {\"packages\":[{\"name\",\"version\",\"path\",\"retained\",\"routes\",\"held\",\"trial\"}]} on stdout.")
    var json = false

    private struct Listing: Encodable {
        struct Package: Encodable {
            var name: String
            var version: String
            var path: String
            var retained: [String]
            var routes: [String]
            var held: [String]
            var trial: String?
        }
        var packages: [Package]
    }

    func run() async throws {
        let store = try await self.store.packageStore(json: json)
        let listing = try reportingErrors(json: json) {
            return Listing(packages: try store.activePackages().map {
                .init(name: $0.name, version: $0.version, path: $0.directory, retained: $0.retainedVersions,
                      routes: $0.routes, held: try store.heldVersions(of: $0.name),
                      trial: try store.trial(of: $0.name)?.version)
            })
        }
        if json {
            try Output.printJSON(listing)
            return
        }
        if listing.packages.isEmpty { print("no packages installed under \(store.layout.root)") }
        for package in listing.packages {
            print("\(package.name) \(package.version)\(package.trial == nil ? "" : " (on trial)")  \(package.path)")
            print("  retained: \(package.retained.joined(separator: ", "))")
            if !package.held.isEmpty { print("  held: \(package.held.joined(separator: ", "))") }
        }
    }
}
