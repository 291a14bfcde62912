import FoundationEssentials

extension PackageStore {
    /// Versions of `name` that `update` will not install while the manifest names
    /// them: left by a rollback or reverted after a failed trial.
    public func heldVersions(of name: String) throws -> [String] {
        try loadHolds()[name] ?? []
    }

    /// Holds back `version` of `name`. Expects the store lock.
    public func hold(_ name: String, version: String) throws {
        var holds = try loadHolds()
        guard !(holds[name] ?? []).contains(version) else { return }
        holds[name, default: []].append(version)
        try saveHolds(holds)
    }

    /// Lifts every hold on `name` and forgets the manifest's validators, so the
    /// next update reads the manifest again. Returns the versions released. Expects the store lock.
    @discardableResult
    public func unhold(_ name: String) throws -> [String] {
        var holds = try loadHolds()
        guard let released = holds.removeValue(forKey: name) else { return [] }
        try saveHolds(holds)
        ManifestState.clear(layout)
        return released
    }

    private func loadHolds() throws -> [String: [String]] {
        try StateFile.load([String: [String]].self, from: layout.holds, what: "holds") ?? [:]
    }

    private func saveHolds(_ holds: [String: [String]]) throws {
        try layout.prepare()
        try StateFile.save(holds, to: layout.holds)
    }
}
