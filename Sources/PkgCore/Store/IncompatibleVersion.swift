/// A version that stopped being served because it does not fit the device's host runtime
/// and no installed or published release of its package does: the app falls back to what
/// it ships (or the origin) until one does.
public struct IncompatibleVersion: Codable, Sendable, Hashable {
    /// The version that was active.
    public var version: String
    /// The runtimes it was built for (``ManifestEntry/runtime``).
    public var range: String
    /// The device's runtime it does not fit.
    public var runtime: String

    /// A record of `version`, built for `range`, left on a host at `runtime`.
    public init(version: String, range: String, runtime: String) {
        self.version = version
        self.range = range
        self.runtime = runtime
    }
}
