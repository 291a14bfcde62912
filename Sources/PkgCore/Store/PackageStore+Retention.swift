#if canImport(Glibc)
import Glibc
#endif

extension PackageStore {
    /// Makes the version installed just before the active one active again.
    /// Returns the versions switched from and to.
    @discardableResult
    public func rollback(_ name: String) throws -> (from: String, to: String) {
        guard let active = activeVersion(of: name) else {
            throw PkgError(.notInstalled, "\(name) is not installed under \(layout.root)")
        }
        let retained = try retainedVersions(of: name).map(\.entry.version)
        guard let position = retained.firstIndex(of: active), position > 0 else {
            throw PkgError(.notInstalled, "\(name): no version retained before \(active) to roll back to")
        }
        let previous = retained[position - 1]
        try activate(name, version: previous)
        return (active, previous)
    }

    /// Removes, for every package, retained versions beyond the `keep` most
    /// recently installed, with their overlay cache; the active version always
    /// stays. Returns what was removed.
    @discardableResult
    public func collectGarbage(keep: Int) throws -> [(name: String, version: String)] {
        guard keep >= 1 else { throw PkgError(.invalidArgument, "--keep must be at least 1 (got \(keep))") }
        var removed: [(String, String)] = []
        for name in try packageNames() {
            let active = activeVersion(of: name)
            let retained = try retainedVersions(of: name).map(\.entry.version)
            for version in retained.dropLast(keep) where version != active {
                try discardTree(layout.versionDirectory(name, version))
                unlink(layout.recordFile(name, version))
                if FileSystem.exists(layout.overlayDirectory(name, version)) {
                    try discardTree(layout.overlayDirectory(name, version))
                }
                removed.append((name, version))
            }
        }
        return removed
    }
}
