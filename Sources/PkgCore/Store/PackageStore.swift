/// The installed packages under a store root: what is active, what is
/// retained, and the operations that change them (install, activate,
/// rollback, gc, verify). Changing operations expect the caller to hold a
/// ``StoreLock``.
///
/// ```swift
/// let store = PackageStore(root: "/var/lib/pkgctl")
/// for package in try store.activePackages() {
///     print(package.name, package.version, package.directory)
/// }
/// ```
public struct PackageStore: Sendable {
    /// Where the store's files live.
    public let layout: StoreLayout

    /// A store at `root`; nothing is created until something is installed.
    public init(root: String) {
        self.layout = StoreLayout(root: root)
    }

    /// Runs `body` holding the store's ``StoreLock``, as every changing
    /// operation expects (waiting for it, after calling `onWait`, when `wait` is true).
    ///
    /// ```swift
    /// try store.locked { try store.revertUnconfirmedTrials() }
    /// ```
    public func locked<T>(wait: Bool = true, onWait: (String) -> Void = { _ in }, _ body: () throws -> T) throws -> T {
        let lock = try StoreLock(layout: layout, wait: wait, onWait: onWait)
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    /// Names of all packages with a directory in the store, sorted.
    public func packageNames() throws -> [String] {
        try FileSystem.contents(of: layout.packages).filter { FileSystem.isDirectory(layout.packageDirectory($0)) }
    }

    /// The version `current` points at, or nil when the package has none.
    public func activeVersion(of name: String) -> String? {
        FileSystem.symlinkTarget(layout.currentLink(name))
    }

    /// The record of an installed version, or nil when that version is not completely installed.
    public func record(of name: String, version: String) throws -> VersionRecord? {
        guard FileSystem.isDirectory(layout.versionDirectory(name, version)) else { return nil }
        return try VersionRecord.load(from: layout.recordFile(name, version))
    }

    /// Every completely installed version of a package, oldest install first.
    public func retainedVersions(of name: String) throws -> [VersionRecord] {
        var records: [VersionRecord] = []
        for file in try FileSystem.contents(of: layout.recordDirectory(name)) where file.hasSuffix(".json") {
            let version = String(file.dropLast(".json".count))
            if let record = try record(of: name, version: version) { records.append(record) }
        }
        return records.sorted { ($0.installedAt, PackageVersion($0.entry.version)) < ($1.installedAt, PackageVersion($1.entry.version)) }
    }

    /// Each package's active version with its directory and routes, sorted by name.
    public func activePackages() throws -> [InstalledPackage] {
        var result: [InstalledPackage] = []
        for name in try packageNames() {
            guard let version = activeVersion(of: name), let record = try record(of: name, version: version) else { continue }
            result.append(InstalledPackage(
                name: name, version: version,
                directory: layout.versionDirectory(name, version),
                routes: record.entry.routes,
                spaFallback: record.entry.spaFallback,
                immutable: record.entry.immutable,
                headers: record.entry.headers,
                retainedVersions: try retainedVersions(of: name).map(\.entry.version)))
        }
        return result
    }
}
