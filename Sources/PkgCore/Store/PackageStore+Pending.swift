extension PackageStore {
    /// The version of `name` installed and waiting for an activation window, if any.
    public func pendingVersion(of name: String) throws -> String? {
        try pendingFile.value(of: name)
    }

    /// Records that `version` of `name`, installed, waits for an activation window. Expects the store lock.
    func setPending(_ name: String, version: String) throws {
        try pendingFile.update(name) { $0 = version }
    }

    /// Forgets what `name` waited for (it was activated, or is no longer wanted). Expects the store lock.
    func clearPending(_ name: String) throws {
        try pendingFile.update(name) { $0 = nil }
    }

    private var pendingFile: PackageStateFile<String> {
        PackageStateFile(path: layout.pending, what: "pending versions", layout: layout)
    }
}
