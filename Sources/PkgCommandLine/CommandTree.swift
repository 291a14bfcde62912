import ArgumentParser
import FoundationEssentials

/// pkgctl's commands and their long options, as the argument parser describes them
/// (the data of `--experimental-dump-help`): what a mistyped command or flag is compared with.
package struct CommandTree: Decodable {
    /// The command's name (`pkgctl`, `update`, `report`).
    let commandName: String
    var subcommands: [CommandTree]?
    let arguments: [Argument]?

    /// One argument of a command; only its long names matter here.
    struct Argument: Decodable {
        struct Name: Decodable {
            let kind: String
            let name: String
        }

        let names: [Name]?
    }

    private struct Document: Decodable {
        let command: CommandTree
    }

    /// The whole tree of `root`, from `pkgctl` down.
    package static func of(_ root: any ParsableCommand.Type) -> CommandTree? {
        try? JSONDecoder().decode(Document.self, from: Data(root._dumpHelp().utf8)).command
    }

    /// A command with no subcommands or options of its own here: one run by the other side's binary.
    package init(commandName: String) {
        self.commandName = commandName
        subcommands = nil
        arguments = nil
    }

    /// This tree with `commands` added to its subcommands.
    package func adding(_ commands: [CommandTree]) -> CommandTree {
        var tree = self
        tree.subcommands = (subcommands ?? []) + commands
        return tree
    }

    /// The commands one can run here, without the parser's own `help`.
    var commandNames: [String] {
        (subcommands ?? []).map(\.commandName).filter { $0 != "help" }
    }

    /// Every long option, with its dashes (`--root`), and `--help`.
    var longOptions: [String] {
        (arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }.map { "--" + $0.name } + ["--help"]
    }

    /// The command the words of a command line name (`["fleet", "report", "x.log"]`: `fleet report`),
    /// its path from `pkgctl`, and the words after its name.
    func command(named words: [String]) -> (command: CommandTree, path: [String], rest: ArraySlice<String>) {
        var command = self
        var path = [commandName]
        var rest = words[...]
        while let word = rest.first, let next = command.subcommands?.first(where: { $0.commandName == word }) {
            command = next
            path.append(word)
            rest = rest.dropFirst()
        }
        return (command, path, rest)
    }
}
