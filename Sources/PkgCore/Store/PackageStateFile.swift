/// A state file holding one value per package (`holds.json`, `pending.json`,
/// `incompatible.json`): read whole, changed for one package, and written atomically
/// only when the change changed something.
struct PackageStateFile<Value: Codable & Equatable> {
    /// The file.
    let path: String
    /// What it holds, for errors ("holds", "pending versions").
    let what: String
    let layout: StoreLayout

    /// Every package's value.
    func entries() throws -> [String: Value] {
        try StateFile.load([String: Value].self, from: path, what: what) ?? [:]
    }

    /// `name`'s value, if any.
    func value(of name: String) throws -> Value? {
        try entries()[name]
    }

    /// Changes `name`'s value with `change` (nil: none) and returns the value before. Expects the store lock.
    @discardableResult
    func update(_ name: String, _ change: (inout Value?) -> Void) throws -> Value? {
        var all = try entries()
        let before = all[name]
        var value = before
        change(&value)
        guard value != before else { return before }
        all[name] = value
        try layout.prepare()
        try StateFile.save(all, to: path)
        return before
    }
}
