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

    /// The values used when no layer sets them; the help texts and `pkgctl config` show these.
    enum Defaults {
        static let bind = "127.0.0.1"
        static let port = 8080
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

        guard (0...65535).contains(port) else { throw layers.invalid("serve.port", "must be 0-65535") }
        if let metricsPort, !(0...65535).contains(metricsPort) {
            throw layers.invalid("serve.metrics-port", "must be 0-65535")
        }
    }
}
