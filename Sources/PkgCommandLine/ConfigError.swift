/// A config file, or a setting from the environment or the file, that cannot be used:
/// the one-line message names the file (or variable), the key and what is wrong.
package struct ConfigError: Error, CustomStringConvertible {
    package let message: String
    /// ``ExitStatus/config``, or ``ExitStatus/usage`` when a flag is what is wrong.
    package let status: Int32

    package init(_ message: String, status: Int32 = ExitStatus.config) {
        self.message = message
        self.status = status
    }

    package var description: String { message }
}
