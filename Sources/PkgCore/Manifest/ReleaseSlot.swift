/// Where a release sits in a manifest: its package and the runtimes it fits. A manifest
/// lists one release per slot; `pack`, `rollout` and `revoke` change one slot and leave
/// the package's releases for other runtimes alone.
public struct ReleaseSlot: Sendable, Hashable, CustomStringConvertible {
    /// The package.
    public var name: String
    /// The runtimes; nil: any.
    public var runtime: RuntimeRange?

    /// The slot of `name` for `runtime`.
    public init(name: String, runtime: RuntimeRange?) {
        self.name = name
        self.runtime = runtime
    }

    /// The slot a (validated) entry fills.
    public init(_ entry: ManifestEntry) {
        self.init(name: entry.name, runtime: entry.runtimeRange)
    }

    /// "demo" or "demo for runtime 2.x".
    public var description: String {
        runtime.map { "\(name) for runtime '\($0.text)'" } ?? name
    }
}
