import ArgumentParser
import PkgCommandLine

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
            over HTTP. Each command has a page of its own: man pkgctl-update, and so on.

            The publisher's commands (pack, publish, prune, promote, rollout, revoke, sign, timestamp, \
            fleet, keygen, root) come in the package pkgctl-publisher: once it is installed, this \
            pkgctl runs them as its own (pkgctl pack --help). A device needs none of them.

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
        version: PkgctlVersion.current,
        subcommands: [
            UpdateCommand.self, StatusCommand.self, RollbackCommand.self, UnholdCommand.self,
            GCCommand.self, VerifyCommand.self, ResolveCommand.self, PrefetchCommand.self, ServeCommand.self,
            ConfigCommand.self,
        ]
    )

    /// Runs the command line: the publisher's commands in the publisher's binary
    /// (``PublisherSide``), every other one here (``CommandMain``).
    static func main() async {
        PublisherSide.runIfNamed(Array(CommandLine.arguments.dropFirst()))
        await CommandMain.run(Pkgctl.self) { CommandTree.of(Pkgctl.self)?.adding(PublisherSide.commands.map(CommandTree.init)) }
    }
}
