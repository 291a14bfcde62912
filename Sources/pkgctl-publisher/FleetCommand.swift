import ArgumentParser

struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "What the devices report: read the origin's access logs.",
        discussion: """
            After a run that changed or refused something, pkgctl update reports each package's outcome \
            as one plain GET to the origin, naming no device, which its access log keeps. fleet report \
            sums those reports up per release; fleet watch halts, advances or holds a staged rollout \
            from them. See pkgctl fleet report --help and pkgctl fleet watch --help.

            Examples:
              # How the releases do on the devices, from nginx's logs:
              pkgctl fleet report /var/log/nginx/access.log*
              # Advance or halt demo's rollout from cron, then publish the result:
              pkgctl fleet watch /srv/pkgctl/out demo --log /var/log/nginx/access.log \\
                --interval 1h --max-failure-rate 5 --min-devices 50
            """,
        subcommands: [FleetReportCommand.self, FleetWatchCommand.self])
}
