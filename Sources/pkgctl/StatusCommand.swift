import PkgCommandLine
import ArgumentParser
import FoundationEssentials
import PkgCore

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show each package's active version, its directory and retained versions.",
        discussion: """
            For each package with an active version: the version and its directory, the versions retained \
            beside it, its held versions (rolled back, or failed a health check), the version on trial while \
            a health check runs or its launches settle it (with its clean and bad launches so far), and a \
            version waiting for an activation window. Then the newest signed \
            manifest the store accepted: its sequence and expiry, EXPIRED once past it. With --runtime (or \
            update.runtime in the config), an active version whose runtime range excludes the host app's \
            version is flagged INCOMPATIBLE.

            A package without an active version is not listed. Exits 1 when the store cannot be read; with \
            --json, {"error","errorCode"} is printed on stdout as well.

            Examples:
              # What is installed in the packaged service's store:
              pkgctl status --root /var/lib/pkgctl
              # The same as JSON, flagging what does not fit host app 3.1.0:
              pkgctl status --json --runtime 3.1.0
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: ArgumentHelp("Print {\"packages\":[{\"name\",\"version\",\"path\",\"retained\",\"routes\",\"held\",\"trial\":{\"version\",\"confirmedBy\",\"previous\",\"launches\":{\"clean\",\"bad\",\"confirmAfter\",\"revertAfter\",\"lastProblem\"}},\"pending\","
          + "\"runtime\",\"incompatible\"}],\"notServed\":[{\"name\",\"version\",\"range\",\"runtime\"}],"
          + "\"manifest\":{\"sequence\",\"expires\",\"expired\"}} on stdout."))
    var json = false

    @Option(help: ArgumentHelp("The host app's version, to flag active versions whose runtime range excludes it "
                               + "(default: update.runtime from the config or environment).", valueName: "version"))
    var runtime: String?

    private struct Listing: Encodable {
        struct Package: Encodable {
            var name: String
            var version: String
            var path: String
            var retained: [String]
            var routes: [String]
            var held: [String]
            /// The version on trial, absent when none is.
            var trial: Trial?
            /// A version installed and waiting for an activation window.
            var pending: String?
            /// The host runtimes the active version was published for; nil: any.
            var runtime: String?
            /// Whether that range excludes the host's runtime (the next update leaves the version).
            var incompatible: Bool
        }
        /// A version on trial: who settles it, and for a trial by launches, its launches so far.
        struct Trial: Encodable {
            var version: String
            /// `healthCheck`, `app` or `launches`.
            var confirmedBy: String
            var previous: String?
            /// For a trial by launches: clean and bad launches, and how many settle it.
            var launches: Launches?
        }
        struct Launches: Encodable {
            var clean: Int
            var bad: Int
            var confirmAfter: Int
            var revertAfter: Int
            /// The last bad launch's problem, in words.
            var lastProblem: String?
        }
        /// The newest signed manifest accepted; absent when none was.
        struct Manifest: Encodable {
            var sequence: UInt64
            var expires: String
            var expired: Bool
        }
        var packages: [Package]
        /// Packages no longer served because their version does not fit the host runtime.
        var notServed: [NotServed]
        var manifest: Manifest?

        struct NotServed: Encodable {
            var name: String
            var version: String
            var range: String
            var runtime: String
        }
    }

    /// The trial of `name`, with its launches for a trial by launches.
    private static func trial(of name: String, in store: PackageStore) throws -> Listing.Trial? {
        guard let trial = try store.trial(of: name) else { return nil }
        let launches = try trial.rule.map { rule in
            let tally = try store.launchTally(of: name, version: trial.version) ?? LaunchTally()
            return Listing.Launches(clean: tally.clean, bad: tally.bad, confirmAfter: rule.confirmAfter,
                                    revertAfter: rule.revertAfter, lastProblem: tally.lastProblem?.summary)
        }
        return Listing.Trial(version: trial.version, confirmedBy: trial.confirmedBy.rawValue, previous: trial.previous,
                             launches: launches)
    }

    func run() async throws {
        var flags = FlagSettings()
        flags.set("update.runtime", runtime)
        let layers = try await self.store.layers(flags: flags, json: json)
        let (store, hostRuntime) = try reportingErrors(json: json) {
            (try self.store.packageStore(layers, writes: false), try UpdateSettings.runtime(layers))
        }
        let listing = try reportingErrors(json: json) {
            let manifest = try store.acceptedManifest().map {
                Listing.Manifest(sequence: $0.sequence, expires: InternetDate.format($0.expires), expired: $0.expires < Date())
            }
            let notServed = try store.incompatibleVersions().sorted { $0.key < $1.key }.compactMap { name, version in
                store.activeVersion(of: name) == nil
                    ? Listing.NotServed(name: name, version: version.version, range: version.range, runtime: version.runtime) : nil
            }
            return Listing(packages: try store.activePackages().map {
                let entry = try store.record(of: $0.name, version: $0.version)?.entry
                return .init(name: $0.name, version: $0.version, path: $0.directory, retained: $0.retainedVersions,
                             routes: $0.routes, held: try store.heldVersions(of: $0.name),
                             trial: try Self.trial(of: $0.name, in: store), pending: try store.pendingVersion(of: $0.name),
                             runtime: entry?.runtime, incompatible: !(entry?.fits(hostRuntime) ?? true))
            }, notServed: notServed, manifest: manifest)
        }
        if json {
            try Output.printJSON(listing)
            return
        }
        if listing.packages.isEmpty, listing.notServed.isEmpty { print("no packages installed under \(store.layout.root)") }
        for package in listing.packages {
            print("\(package.name) \(package.version)\(package.trial == nil ? "" : " (on trial)")  \(package.path)")
            print("  retained: \(package.retained.joined(separator: ", "))")
            if let launches = package.trial?.launches {
                print("  trial: \(launches.clean) of \(launches.confirmAfter) clean launches to confirm, "
                      + "\(launches.bad) of \(launches.revertAfter) bad to revert"
                      + (launches.lastProblem.map { " (last: \($0))" } ?? ""))
            }
            if !package.held.isEmpty { print("  held: \(package.held.joined(separator: ", "))") }
            if let pending = package.pending { print("  pending: \(pending) (installed; activates inside an activation window)") }
            if let range = package.runtime {
                print("  runtime: \(range)" + (package.incompatible ? " (INCOMPATIBLE with runtime \(hostRuntime?.text ?? "-"); "
                                                + "the next update leaves it)" : ""))
            }
        }
        for package in listing.notServed {
            print("\(package.name): not served: \(package.version) is for '\(package.range)', not runtime \(package.runtime); "
                  + "update installs a release that fits once one is published")
        }
        if let manifest = listing.manifest {
            print("signed manifest: sequence \(manifest.sequence), "
                  + (manifest.expired ? "EXPIRED at \(manifest.expires); the publisher must re-sign it"
                                      : "expires \(manifest.expires)"))
        }
    }
}
