import ArgumentParser

@main
struct Pkgctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pkgctl",
        abstract: "Offline web-bundle manager: verified, atomic installs of zip bundles, and a preview server.",
        discussion: ExitStatus.discussion,
        version: "0.1.0",
        subcommands: [
            UpdateCommand.self, StatusCommand.self, RollbackCommand.self, UnholdCommand.self,
            GCCommand.self, VerifyCommand.self, PackCommand.self, RolloutCommand.self, RevokeCommand.self, SignCommand.self,
            PublishCommand.self, PruneCommand.self, PromoteCommand.self,
            TimestampCommand.self, KeygenCommand.self, FleetCommand.self,
            ResolveCommand.self, PrefetchCommand.self, ServeCommand.self, ConfigCommand.self,
        ]
    )

    /// Runs the command; a refusal of the command line (unknown flag, missing or
    /// out-of-range value) is one `pkgctl:` line and exit 64, like every other refusal,
    /// instead of the argument parser's message and usage block; a mistyped command or
    /// option is answered with what was probably meant (``UsageCorrection``).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            // An ExitCode was thrown after pkgctl reported the refusal itself.
            guard !(error is ExitCode), exitCode(for: error).rawValue == ExitStatus.usage else { exit(withError: error) }
            let message = Self.message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
            let stripped = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
            Output.printError(UsageCorrection.message(for: stripped, words: Array(CommandLine.arguments.dropFirst())))
            exit(withError: ExitCode(ExitStatus.usage))
        }
    }
}
