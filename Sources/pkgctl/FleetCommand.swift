import ArgumentParser

struct FleetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "What the devices report: read the origin's access logs.",
        subcommands: [FleetReportCommand.self, FleetWatchCommand.self])
}
