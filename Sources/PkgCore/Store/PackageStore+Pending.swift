extension PackageStore {
    /// The version of `name` installed and waiting for an activation window, if any.
    public func pendingVersion(of name: String) throws -> String? {
        try loadPending()[name]
    }

    /// Records that `version` of `name`, installed, waits for an activation window. Expects the store lock.
    func setPending(_ name: String, version: String) throws {
        var pending = try loadPending()
        guard pending[name] != version else { return }
        pending[name] = version
        try layout.prepare()
        try StateFile.save(pending, to: layout.pending)
    }

    /// Forgets what `name` waited for (it was activated, or is no longer wanted). Expects the store lock.
    func clearPending(_ name: String) throws {
        var pending = try loadPending()
        guard pending.removeValue(forKey: name) != nil else { return }
        try StateFile.save(pending, to: layout.pending)
    }

    private func loadPending() throws -> [String: String] {
        try StateFile.load([String: String].self, from: layout.pending, what: "pending versions") ?? [:]
    }
}
