import ArgumentParser
import FoundationEssentials
import PkgCore

import Glibc

/// Writing to stdout and stderr.
package enum Output {
    /// Prints `line` as `pkgctl: line`, saying where the store's path came from when it names it.
    package static func printError(_ line: String) {
        write(Array(("pkgctl: " + StoreRoot.annotated(line) + "\n").utf8), to: STDERR_FILENO)
    }

    package static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        write(Array(data) + [UInt8(ascii: "\n")], to: STDOUT_FILENO)
    }

    /// Writes all of `bytes` to `descriptor` unbuffered (so it is not held back
    /// behind `print`'s buffer); gives up quietly when the reader is gone.
    package static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    package static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}

/// Runs `body`, turning a ``PkgError`` or ``ConfigError`` into its one-line message on
/// stderr and its ``ExitStatus`` (75 for a busy lock, 78 for configuration, 64 for a flag
/// out of range, else 1).
///
/// With `json`, the failure is also printed on stdout as a ``JSONFailure``.
package func reportingErrors<T>(json: Bool = false, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as PkgError {
        Output.printError(error.commandLineMessage)
        if json { try Output.printJSON(JSONFailure(error: error.commandLineMessage, errorCode: error.code.description)) }
        throw ExitCode(error.code == .locked ? ExitStatus.lockBusy : ExitStatus.failure)
    } catch let error as ConfigError {
        throw try reportedExit(error, json: json)
    }
}

/// Prints `error`'s one line (and, with `json`, the failure as JSON on stdout) and
/// returns the exit that ends the command.
package func reportedExit(_ error: ConfigError, json: Bool) throws -> ExitCode {
    Output.printError(error.message)
    if json { try Output.printJSON(JSONFailure(error: error.message, errorCode: JSONFailure.configurationCode)) }
    return ExitCode(error.status)
}
