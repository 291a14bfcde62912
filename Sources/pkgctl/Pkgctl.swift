import ArgumentParser
import Glibc

@main
struct Pkgctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pkgctl",
        abstract: "Offline web-bundle manager: verified, atomic installs of zip bundles, and a preview server.",
        discussion: """
            An origin publishes zip "offline packages" (html, js, css, images) and a manifest; \
            pkgctl update downloads the ones that changed, verifies them and unzips them atomically \
            into versioned directories of the store, so a crash, a bad zip or a full disk at any moment \
            leaves the active version whole and serving. pkgctl serve previews the installed packages \
            over HTTP. pack, publish, rollout, revoke and fleet watch are the publisher's side. \
            Each command has a page of its own: man pkgctl-update, and so on.

            Every command that works on a store takes --root DIR (else $PKGCTL_ROOT, else the config \
            file's root, else $XDG_DATA_HOME/pkgctl, else ~/.local/share/pkgctl) and --config FILE. \
            Errors are one line naming what and where, starting with "pkgctl:".

            \(ExitStatus.discussion)

            Examples:
              # Pack a build folder as demo 1.1.0, then copy it where the origin serves:
              pkgctl pack dist --name demo --version 1.1.0 --out /srv/pkgctl/out
              pkgctl publish /srv/pkgctl/out /srv/www/app
              # On a device: install what the manifest names, then preview it on :8080:
              pkgctl update --manifest https://cdn.example.com/app/manifest.json
              pkgctl serve
            """,
        version: "0.1.0",
        subcommands: [
            UpdateCommand.self, StatusCommand.self, RollbackCommand.self, UnholdCommand.self,
            GCCommand.self, VerifyCommand.self, PackCommand.self, RolloutCommand.self, RevokeCommand.self, SignCommand.self,
            PublishCommand.self, PruneCommand.self, PromoteCommand.self,
            TimestampCommand.self, KeygenCommand.self, RootCommand.self, FleetCommand.self,
            ResolveCommand.self, PrefetchCommand.self, ServeCommand.self, ConfigCommand.self,
        ]
    )

    /// Runs the command; a refusal of the command line (unknown flag, missing or
    /// out-of-range value) is one `pkgctl:` line and exit 64, like every other refusal,
    /// instead of the argument parser's message and usage block; a mistyped command or
    /// option is answered with what was probably meant (``UsageCorrection``).
    static func main() async {
        // glibc's default zone, named: with TZ unset, every mktime() stats /etc/localtime again
        // under tzset's lock, and libzip makes one per entry each time it opens an archive (three
        // stats and three futex calls per file of an install, 9,000 of 17,000 system calls).
        setenv("TZ", ":/etc/localtime", 0)
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
