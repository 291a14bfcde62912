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
            TimestampCommand.self, KeygenCommand.self,
            ResolveCommand.self, ServeCommand.self, ConfigCommand.self,
        ]
    )
}
