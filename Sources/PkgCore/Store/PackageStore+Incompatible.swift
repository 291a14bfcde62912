extension PackageStore {
    /// The version of `name` no longer served because it does not fit the host runtime, if any.
    public func incompatibleVersion(of name: String) throws -> IncompatibleVersion? {
        try incompatibleFile.value(of: name)
    }

    /// Every package left without an active version because it does not fit the host runtime.
    public func incompatibleVersions() throws -> [String: IncompatibleVersion] {
        try incompatibleFile.entries()
    }

    /// Stops serving `name`'s active version, which does not fit the host: records why, then
    /// removes the `current` link. Expects the store lock.
    func stopServing(_ name: String, because incompatible: IncompatibleVersion) throws {
        try incompatibleFile.update(name) { $0 = incompatible }
        try deactivate(name)
    }

    /// Forgets why `name` was not served (a version is active again). Expects the store lock.
    func clearIncompatible(_ name: String) throws {
        try incompatibleFile.update(name) { $0 = nil }
    }

    private var incompatibleFile: PackageStateFile<IncompatibleVersion> {
        PackageStateFile(path: layout.incompatible, what: "incompatible versions", layout: layout)
    }
}
