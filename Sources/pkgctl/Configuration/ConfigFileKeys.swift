import FoundationEssentials

/// The structure check of a config file that swift-configuration does not make:
/// the file is one JSON object whose keys are known settings (a misspelt key
/// would otherwise be ignored and its default used without a word).
enum ConfigFileKeys {
    /// A JSON value, only as deep as the check needs.
    private enum Node: Decodable {
        case object([String: Node])
        case other

        init(from decoder: any Decoder) throws {
            if let object = try? decoder.singleValueContainer().decode([String: Node].self) {
                self = .object(object)
            } else {
                self = .other
            }
        }
    }

    /// Throws a ``ConfigError`` naming `path` and the first key that is not a setting.
    static func check(_ bytes: [UInt8], path: String) throws {
        let root: Node
        do {
            root = try JSONDecoder().decode(Node.self, from: Data(bytes))
        } catch {
            throw ConfigError("\(path): not valid JSON")
        }
        guard case .object(let top) = root else { throw ConfigError("\(path): expected a JSON object at the top level") }
        let known = Set(Setting.all.map(\.key))
        let sections = Set(known.compactMap { key in key.firstIndex(of: ".").map { String(key[..<$0]) } })
        for (name, node) in top.sorted(by: { $0.key < $1.key }) {
            if sections.contains(name) {
                guard case .object(let section) = node else { throw ConfigError("\(path): \(name): expected an object") }
                for key in section.keys.sorted() where !known.contains(name + "." + key) {
                    throw ConfigError("\(path): unknown key \(shown(name + "." + key))")
                }
            } else if !known.contains(name) {
                throw ConfigError("\(path): unknown key \(shown(name))")
            }
        }
    }

    /// A key as echoed in an error: at most 60 characters, control characters escaped.
    private static func shown(_ key: String) -> String {
        let escaped = String(key.unicodeScalars.prefix(60).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
        return "'" + escaped + (key.unicodeScalars.count > 60 ? "…" : "") + "'"
    }
}
