extension PackageStore {
    /// The version of `name` no longer served because it does not fit the host runtime, if any.
    public func incompatibleVersion(of name: String) throws -> IncompatibleVersion? {
        try loadIncompatible()[name]
    }

    /// Every package left without an active version because it does not fit the host runtime.
    public func incompatibleVersions() throws -> [String: IncompatibleVersion] {
        try loadIncompatible()
    }

    /// Stops serving `name`'s active version, which does not fit the host: records why, then
    /// removes the `current` link. Expects the store lock.
    func stopServing(_ name: String, because incompatible: IncompatibleVersion) throws {
        var all = try loadIncompatible()
        all[name] = incompatible
        try layout.prepare()
        try StateFile.save(all, to: layout.incompatible)
        try deactivate(name)
    }

    /// Forgets why `name` was not served (a version is active again). Expects the store lock.
    func clearIncompatible(_ name: String) throws {
        var all = try loadIncompatible()
        guard all.removeValue(forKey: name) != nil else { return }
        try StateFile.save(all, to: layout.incompatible)
    }

    private func loadIncompatible() throws -> [String: IncompatibleVersion] {
        try StateFile.load([String: IncompatibleVersion].self, from: layout.incompatible,
                           what: "incompatible versions") ?? [:]
    }
}
