/// Which release of an entry a device aims at: the rollout leaving it out, a revoked version
/// withdrawn, and what the move from the active version is called.
extension Updater {
    /// The entry's rollout when it leaves this device out: the device is not among those it
    /// goes to, and does not already run the new version (a device that does keeps it).
    func rolloutLeavingOut(_ deviceID: String, entry: ManifestEntry, active: String?) -> Rollout? {
        guard let rollout = entry.rollout, active != entry.version, !rollout.includes(deviceID: deviceID) else { return nil }
        return rollout
    }

    /// The release this device should run: the entry's version, or, outside
    /// its rollout (`leftOutBy`), the version named before it. Nil when nothing
    /// may be installed: no earlier version to fall back on, or only a revoked one.
    func target(of entry: ManifestEntry, leftOutBy rollout: Rollout?) -> ManifestEntry? {
        var target = entry
        if let rollout {
            guard let previous = rollout.previous else { return nil }
            target = previous.entry(name: entry.name)
        }
        target.rollout = nil
        target.revoked = []
        return entry.revoked.contains(target.version) ? nil : target
    }

    /// Switches a package away from its revoked active version to the newest
    /// retained version that is neither revoked nor held; returns that version.
    func withdraw(_ name: String, from active: String, revoked: [String]) throws -> String {
        let retained = try store.retainedVersions(of: name).map(\.entry.version)
        let held = try store.heldVersions(of: name)
        guard let fallback = retained.last(where: { !revoked.contains($0) && !held.contains($0) }) else {
            throw PkgError(.notInstalled, "revoked, and no other version is retained to switch back to; it keeps serving")
        }
        try store.activate(name, version: fallback)
        try store.removeTrial(name)
        return fallback
    }

    func action(from active: String?, to version: String) -> UpdateReport.Action {
        guard let active else { return .installed }
        if PackageVersion(version) == PackageVersion(active) { return .republished }
        return PackageVersion(version) < PackageVersion(active) ? .downgraded : .upgraded
    }
}
