import ArgumentParser
import Foundation
import PkgCore

#if canImport(Glibc)
import Glibc
#endif

/// Writing to stdout and stderr.
enum Output {
    static func printError(_ line: String) {
        FileHandle.standardError.write(Data(("pkgctl: " + line + "\n").utf8))
    }

    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }
}

/// Runs `body`, turning a ``PkgError`` into its one-line message on stderr and exit status 1.
func reportingErrors<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as PkgError {
        Output.printError(error.message)
        throw ExitCode.failure
    }
}
