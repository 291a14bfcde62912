import FoundationEssentials

extension PackageStore {
    /// Versions of `name` that `update` will not install while the manifest names
    /// them: left by a rollback or reverted after a failed trial.
    public func heldVersions(of name: String) throws -> [String] {
        try holdsFile.value(of: name) ?? []
    }

    /// Holds back `version` of `name` and forgets the manifest's validators, so the next
    /// update reads the manifest again and says what is held (a run answered 304 says again
    /// only what the last full read found). Expects the store lock.
    public func hold(_ name: String, version: String) throws {
        try holdsFile.update(name) { held in
            if !(held ?? []).contains(version) { held = (held ?? []) + [version] }
        }
        try ManifestState.clear(layout)
    }

    /// Lifts every hold on `name` and, held or not, forgets the manifest's validators, so the
    /// next update reads the manifest again. Returns the versions released. Expects the store lock.
    @discardableResult
    public func unhold(_ name: String) throws -> [String] {
        let released = try holdsFile.update(name, { $0 = nil }) ?? []
        try ManifestState.clear(layout)
        return released
    }

    private var holdsFile: PackageStateFile<[String]> {
        PackageStateFile(path: layout.holds, what: "holds", layout: layout)
    }
}
