import PkgCommandLine
import Configuration
import FoundationEssentials

/// The config file: one JSON object whose keys are known settings (a misspelt key would
/// otherwise be ignored and its default used without a word), read into the values
/// swift-configuration's reader serves.
///
/// Read here with FoundationEssentials' `JSONDecoder` rather than swift-configuration's
/// `JSONSnapshot`: that one parses with Foundation's `JSONSerialization`, and so linked all of
/// Foundation, with ICU's data, into the device's binary (BENCHMARKS.md, "What a device carries").
enum ConfigFile {
    /// A JSON value.
    private enum Node: Decodable {
        case object([String: Node])
        case array([Node])
        case string(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case null

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                self = .null
            } else if let boolean = try? value.decode(Bool.self) {
                self = .boolean(boolean)
            } else if let integer = try? value.decode(Int.self) {
                self = .integer(integer)
            } else if let number = try? value.decode(Double.self) {
                self = .number(number)
            } else if let string = try? value.decode(String.self) {
                self = .string(string)
            } else if let array = try? value.decode([Node].self) {
                self = .array(array)
            } else {
                self = .object(try value.decode([String: Node].self))
            }
        }
    }

    /// The settings the file at `path` holds, keyed as the reader looks them up (`update.keep`).
    /// Throws a ``ConfigError`` naming `path` for bytes that are not one JSON object, and for
    /// the first key that is not a setting. A value of the wrong kind is kept as one no lookup
    /// accepts, so the reader reports it naming the file and the kind expected; a `null` is unset.
    static func values(_ bytes: [UInt8], path: String) throws -> [AbsoluteConfigKey: ConfigValue] {
        let root: Node
        do {
            root = try JSONDecoder().decode(Node.self, from: Data(bytes))
        } catch {
            throw ConfigError("\(path): not valid JSON")
        }
        guard case .object(let top) = root else { throw ConfigError("\(path): expected a JSON object at the top level") }
        let known = Set(Setting.all.map(\.key))
        let sections = Set(known.compactMap { key in key.firstIndex(of: ".").map { String(key[..<$0]) } })
        var settings: [(key: String, node: Node)] = []
        for (name, node) in top.sorted(by: { $0.key < $1.key }) {
            if sections.contains(name) {
                guard case .object(let section) = node else { throw ConfigError("\(path): \(name): expected an object") }
                for (key, value) in section.sorted(by: { $0.key < $1.key }) {
                    guard known.contains(name + "." + key) else { throw ConfigError("\(path): unknown key \(shown(name + "." + key))") }
                    settings.append((name + "." + key, value))
                }
            } else if known.contains(name) {
                settings.append((name, node))
            } else {
                throw ConfigError("\(path): unknown key \(shown(name))")
            }
        }
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, node) in settings {
            guard let content = content(node, as: Setting.named(key).kind) else { continue }
            values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(content, isSecret: false)
        }
        return values
    }

    /// `node` as a setting of `kind`, read as swift-configuration's JSON reader read it (so a
    /// file that worked before still does): an integral number is an integer, any number a
    /// number, a number is true when it is not 0 and `true` is 1; nil for `null`; empty bytes,
    /// which no lookup of a setting accepts, for another kind.
    private static func content(_ node: Node, as kind: Setting.Kind) -> ConfigContent? {
        switch (kind, node) {
        case (_, .null): nil
        case (.string, .string(let string)): .string(string)
        case (.integer, .integer(let integer)): .int(integer)
        case (.integer, .number(let number)) where Int(exactly: number) != nil: .int(Int(number))
        case (.integer, .boolean(let boolean)): .int(boolean ? 1 : 0)
        case (.number, .integer(let integer)): .double(Double(integer))
        case (.number, .number(let number)): .double(number)
        case (.number, .boolean(let boolean)): .double(boolean ? 1 : 0)
        case (.boolean, .boolean(let boolean)): .bool(boolean)
        case (.boolean, .integer(let integer)): .bool(integer != 0)
        case (.boolean, .number(let number)): .bool(number != 0)
        case (.strings, .array(let items)):
            strings(items).map { .stringArray($0) } ?? .bytes([])
        default: .bytes([])
        }
    }

    private static func strings(_ items: [Node]) -> [String]? {
        var strings: [String] = []
        for item in items {
            guard case .string(let string) = item else { return nil }
            strings.append(string)
        }
        return strings
    }

    /// A key as echoed in an error: at most 60 characters, control characters escaped.
    private static func shown(_ key: String) -> String {
        let escaped = String(key.unicodeScalars.prefix(60).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return "'" + escaped + (key.unicodeScalars.count > 60 ? "…" : "") + "'"
    }
}
