import Glibc

extension PackageStore {
    /// Makes the version installed just before the active one active again and
    /// holds back the version it left, so an update does not reinstall it while
    /// the manifest names it (``unhold(_:)`` lifts that). A pending trial of the
    /// package ends. Returns the versions switched from and to.
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
        try hold(name, version: active)
        try activate(name, version: previous)
        try removeTrial(name)
        return (active, previous)
    }

    /// Removes, for every package, the versions older than the `keep` most recently
    /// installed good ones, with their overlay: a held version (rolled back, or failed
    /// its health check) that is not active is known bad and does not count, so it
    /// never costs a good fallback. The active version, the version a pending trial
    /// would go back to and a version waiting for an activation window always stay.
    /// Returns what was removed.
    @discardableResult
    public func collectGarbage(keep: Int) throws -> [(name: String, version: String)] {
        guard keep >= 1 else { throw PkgError(.invalidArgument, "keep must be at least 1 (got \(keep))") }
        var removed: [(String, String)] = []
        for name in try packageNames() {
            let held = Set(try heldVersions(of: name))
            let active = activeVersion(of: name)
            let retained = try retainedVersions(of: name).map(\.entry.version)
            var kept = Set([active, try trial(of: name)?.previous, try pendingVersion(of: name)].compactMap { $0 })
            var good = 0
            for version in retained.reversed() where good < keep {
                kept.insert(version)
                if !held.contains(version) || version == active { good += 1 }
            }
            for version in retained where !kept.contains(version) {
                // The record goes first and durably: a version without one is never used,
                // so a power cut at any point below cannot bring this version back.
                unlink(layout.recordFile(name, version))
                try FileSystem.syncDirectory(layout.recordDirectory(name))
                try discardTree(layout.versionDirectory(name, version))
                try FileSystem.syncDirectory(layout.packageDirectory(name))
                if FileSystem.exists(layout.overlayDirectory(name, version)) {
                    try discardTree(layout.overlayDirectory(name, version))
                    try FileSystem.syncDirectory(PathName.parent(layout.overlayDirectory(name, version)))
                }
                ServingSignals.remove(name: name, version: version, layout: layout)
                try? LaunchTally.remove(name: name, version: version, layout: layout)
                removed.append((name, version))
            }
        }
        return removed
    }

    /// Removes the objects that unfinished delta installs left in `ROOT/objects`
    /// (kept so a resumed install need not fetch them again). Returns how many.
    @discardableResult
    public func removeObjects() throws -> Int {
        let names = try FileSystem.contents(of: layout.objects)
        for name in names { try FileSystem.removeTree(layout.objects + "/" + name) }
        return names.count
    }
}
