/// A config file, or a setting from the environment or the file, that cannot be used:
/// the one-line message names the file (or variable), the key and what is wrong.
struct ConfigError: Error, CustomStringConvertible {
    let message: String
    /// ``ExitStatus/config``, or ``ExitStatus/usage`` when a flag is what is wrong.
    let status: Int32

    init(_ message: String, status: Int32 = ExitStatus.config) {
        self.message = message
        self.status = status
    }

    var description: String { message }
}
