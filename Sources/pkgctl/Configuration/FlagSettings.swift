import Configuration

/// The settings a command line gave, as the top layer of ``ConfigLayers``:
/// a flag that was not given sets nothing, so the layers below decide.
struct FlagSettings {
    private(set) var values: [String: ConfigContent] = [:]

    mutating func set(_ key: String, _ value: String?) { if let value { values[key] = .string(value) } }

    mutating func set(_ key: String, _ value: Int?) { if let value { values[key] = .int(value) } }

    mutating func set(_ key: String, _ value: Double?) { if let value { values[key] = .double(value) } }

    /// A flag (`--offline`) sets its key only when given.
    mutating func set(_ key: String, _ given: Bool) { if given { values[key] = .bool(true) } }

    /// A flag that turns a setting off (`--no-report` for `update.report`) sets it to false only when given.
    mutating func set(_ key: String, off given: Bool) { if given { values[key] = .bool(false) } }

    /// A repeatable option sets its key only when given at least once.
    mutating func set(_ key: String, _ list: [String]) { if !list.isEmpty { values[key] = .stringArray(list) } }
}
