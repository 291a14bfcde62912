import PkgCommandLine
import PkgCore

/// What `pkgctl serve` runs with, each value from the highest ``ConfigLayers``
/// layer that sets it, else its default; checked as a whole.
struct ServeSettings {
    var bind: String
    var port: Int
    var defaultHost: String?
    var upstream: String?
    var caFile: String?
    var offline: Bool
    var quiet: Bool
    var metricsPort: Int?
    /// A build folder to serve instead of the store's packages, with how to serve it.
    var source: SourceFolder?

    /// The values used when no layer sets them; the help texts and `pkgctl config` show these.
    enum Defaults {
        static let bind = "127.0.0.1"
        static let port = 8080
        /// Where a build folder is served when no route is given: the root of `localhost`.
        static let sourceRoute = "localhost"
    }

    /// Throws a ``ConfigError`` naming the setting, and where it came from, that is
    /// of the wrong type or out of range.
    init(_ layers: ConfigLayers) throws {
        bind = try layers.string("serve.bind") ?? Defaults.bind
        port = try layers.integer("serve.port") ?? Defaults.port
        defaultHost = try layers.string("serve.default-host")
        upstream = try layers.string("serve.upstream")
        caFile = try layers.string("serve.ca-file")
        offline = try layers.boolean("serve.offline") ?? false
        quiet = try layers.boolean("serve.quiet") ?? false
        metricsPort = try layers.integer("serve.metrics-port")

        source = try Self.source(layers)

        guard (0...65535).contains(port) else { throw layers.invalid("serve.port", "must be 0-65535") }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw layers.invalid("serve.metrics-port", "must be 0-65535")
        }
    }

    /// The build folder of `serve.source` and the settings that only apply to one; those
    /// settings without a folder are refused (they would be silently ignored).
    private static func source(_ layers: ConfigLayers) throws -> SourceFolder? {
        let route = try layers.string("serve.route"), spaFallback = try layers.string("serve.spa-fallback")
        let immutable = try layers.strings("serve.immutable") ?? [], headerTexts = try layers.strings("serve.header") ?? []
        guard let directory = try layers.string("serve.source") else {
            for (key, isSet) in [("serve.route", route != nil), ("serve.spa-fallback", spaFallback != nil),
                                 ("serve.immutable", !immutable.isEmpty), ("serve.header", !headerTexts.isEmpty)] where isSet {
                throw layers.invalid(key, "applies to a build folder only: give serve.source (--source DIR) too")
            }
            return nil
        }
        var headers: [PackageHeader] = []
        for text in headerTexts {
            guard let header = PackageHeader(argument: text) else {
                throw layers.invalid("serve.header", "'\(text.escapedForMessage)' must be 'GLOB: Name: value'")
            }
            headers.append(header)
        }
        // Built part by part, so a refusal names the setting it came from.
        let parts: [(key: String, build: () throws -> SourceFolder)] = [
            ("serve.route", { try SourceFolder(directory: directory, route: route ?? Defaults.sourceRoute) }),
            ("serve.spa-fallback", { try SourceFolder(directory: directory, route: route ?? Defaults.sourceRoute,
                                                      spaFallback: spaFallback) }),
            ("serve.immutable", { try SourceFolder(directory: directory, route: route ?? Defaults.sourceRoute,
                                                   spaFallback: spaFallback, immutable: immutable) }),
            ("serve.header", { try SourceFolder(directory: directory, route: route ?? Defaults.sourceRoute,
                                                spaFallback: spaFallback, immutable: immutable, headers: headers) }),
        ]
        var folder: SourceFolder?
        for part in parts {
            do {
                folder = try part.build()
            } catch let error as PkgError {
                throw layers.invalid(part.key, error.message)
            }
        }
        return folder
    }
}
