import ArgumentParser
import FoundationEssentials
import PkgCore

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each package's active version, its directory and retained versions.")

    @OptionGroup var store: StoreOptions

    @Flag(help: ArgumentHelp("Print {\"packages\":[{\"name\",\"version\",\"path\",\"retained\",\"routes\",\"held\",\"trial\",\"pending\"}],"
          + "\"manifest\":{\"sequence\",\"expires\",\"expired\"}} on stdout."))
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
            /// A version installed and waiting for an activation window.
            var pending: String?
        }
        /// The newest signed manifest accepted; absent when none was.
        struct Manifest: Encodable {
            var sequence: UInt64
            var expires: String
            var expired: Bool
        }
        var packages: [Package]
        var manifest: Manifest?
    }

    func run() async throws {
        let store = try await self.store.packageStore(json: json)
        let listing = try reportingErrors(json: json) {
            let manifest = try store.acceptedManifest().map {
                Listing.Manifest(sequence: $0.sequence, expires: $0.expires.formatted(Date.ISO8601FormatStyle()), expired: $0.expires < Date())
            }
            return Listing(packages: try store.activePackages().map {
                .init(name: $0.name, version: $0.version, path: $0.directory, retained: $0.retainedVersions,
                      routes: $0.routes, held: try store.heldVersions(of: $0.name),
                      trial: try store.trial(of: $0.name)?.version, pending: try store.pendingVersion(of: $0.name))
            }, manifest: manifest)
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
            if let pending = package.pending { print("  pending: \(pending) (installed; activates inside an activation window)") }
        }
        if let manifest = listing.manifest {
            print("signed manifest: sequence \(manifest.sequence), "
                  + (manifest.expired ? "EXPIRED at \(manifest.expires); the publisher must re-sign it"
                                      : "expires \(manifest.expires)"))
        }
    }
}
