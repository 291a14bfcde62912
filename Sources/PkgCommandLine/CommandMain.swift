import ArgumentParser
import Glibc

/// How each of pkgctl's two binaries runs its command line (the device's `pkgctl`, and the
/// publisher's `pkgctl-publisher`, which `pkgctl` runs for the publisher's commands).
package enum CommandMain {
    /// Runs the command `Root` parses from the process's arguments. A refusal of the command
    /// line (unknown flag, missing or out-of-range value) is one `pkgctl:` line and exit 64,
    /// like every other refusal, instead of the argument parser's message and usage block; a
    /// mistyped command or option is answered with what was probably meant, among `tree`'s
    /// commands and options (``UsageCorrection``).
    package static func run<Root: ParsableCommand>(_ root: Root.Type, tree: @Sendable () -> CommandTree?) async -> Never {
        // glibc's default zone, named: with TZ unset, every mktime() stats /etc/localtime again
        // under tzset's lock, and libzip makes one per entry each time it opens an archive (three
        // stats and three futex calls per file of an install, 9,000 of 17,000 system calls).
        setenv("TZ", ":/etc/localtime", 0)
        do {
            var command = try root.parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            root.exit()
        } catch {
            // An ExitCode was thrown after pkgctl reported the refusal itself.
            guard !(error is ExitCode), root.exitCode(for: error).rawValue == ExitStatus.usage else { root.exit(withError: error) }
            let message = root.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
            let stripped = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
            Output.printError(UsageCorrection.message(for: stripped, words: Array(CommandLine.arguments.dropFirst()), tree: tree()))
            root.exit(withError: ExitCode(ExitStatus.usage))
        }
    }
}
