import ArgumentParser
import PkgCommandLine

/// The publisher's side of pkgctl, installed as `/usr/libexec/pkgctl/pkgctl-publisher` by the
/// package pkgctl-publisher and run by `pkgctl` for these commands (so it names itself
/// `pkgctl` in its help and errors).
@main
struct PkgctlPublisher: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pkgctl",
        abstract: "The publisher's side of pkgctl: pack releases, publish them, roll them out and watch the fleet.",
        discussion: """
            pack turns a build folder into a release (a zip, its index and deltas) and its manifest \
            entry; publish copies the releases to the folder the origin serves, in an order no \
            device can see half of; rollout, promote and revoke decide who gets what; fleet reads \
            what devices report; sign, timestamp, keygen and root keep the keys. Each command has \
            a page of its own: man pkgctl-pack, and so on.

            \(ExitStatus.discussion)

            Examples:
              # Pack a build folder as demo 1.1.0, then copy it where the origin serves:
              pkgctl pack dist --name demo --version 1.1.0 --out /srv/pkgctl/out
              pkgctl publish /srv/pkgctl/out /srv/www/app
            """,
        version: PkgctlVersion.current,
        subcommands: [
            PackCommand.self, PublishCommand.self, PruneCommand.self, PromoteCommand.self, RolloutCommand.self,
            RevokeCommand.self, SignCommand.self, TimestampCommand.self, FleetCommand.self, KeygenCommand.self,
            RootCommand.self,
        ]
    )

    static func main() async {
        await CommandMain.run(PkgctlPublisher.self) { CommandTree.of(PkgctlPublisher.self) }
    }
}
