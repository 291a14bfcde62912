/// A config file, or a setting from the environment or the file, that cannot be used:
/// the one-line message names the file (or variable), the key and what is wrong.
struct ConfigError: Error, CustomStringConvertible {
    let message: String

    init(_ message: String) { self.message = message }

    var description: String { message }
}
