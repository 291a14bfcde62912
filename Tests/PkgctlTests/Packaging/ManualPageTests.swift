import Foundation
import Testing

/// The man pages in the Debian packages: every command of the packaged binaries' command tree
/// (its `--experimental-dump-help`, so a new command needs a page) has a page whose DESCRIPTION
/// says more than a line and whose EXAMPLES show `pkgctl CMD` lines using only what the command
/// accepts. scripts/package writes EXAMPLES from the part of each command's `discussion` after
/// its "Examples:" line.
struct ManualPageTests {
    /// One command of the binary's tree, as `--experimental-dump-help` describes it.
    struct Command {
        var path: [String]
        /// Every name of each flag and option (`--keep`, `-q`), and whether it takes a value.
        var names: [String: Bool] = [:]
        var requiredOptions: [[String]] = []
        var positionals: (required: Int, maximum: Int) = (0, 0)
        var subcommands: [String: Command] = [:]

        var page: String { "usr/share/man/man1/" + (["pkgctl"] + path).joined(separator: "-") + ".1.gz" }
        var line: String { (["pkgctl"] + path).joined(separator: " ") }

        init(_ json: [String: Any], path: [String]) {
            self.path = path
            var required = 0, maximum = 0
            for argument in json["arguments"] as? [[String: Any]] ?? [] {
                let optional = argument["isOptional"] as? Bool ?? false
                switch argument["kind"] as? String {
                case "positional":
                    required += optional ? 0 : 1
                    maximum = argument["isRepeating"] as? Bool == true ? Int.max : (maximum == Int.max ? maximum : maximum + 1)
                case let kind:
                    let spelled = (argument["names"] as? [[String: Any]] ?? []).compactMap { name -> String? in
                        guard let text = name["name"] as? String else { return nil }
                        return (name["kind"] as? String == "long" ? "--" : "-") + text
                    }
                    // A command's own option wins over a built-in flag of the same name (pack --version).
                    for name in spelled { names[name] = names[name] == true || kind == "option" }
                    if kind == "option", !optional { requiredOptions.append(spelled) }
                }
            }
            positionals = (required, maximum)
            for child in json["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = child["commandName"] as? String, name != "help" else { continue }
                subcommands[name] = Command(child, path: path + [name])
            }
        }

        var all: [Command] { [self] + subcommands.values.sorted { $0.line < $1.line }.flatMap(\.all) }
    }

    /// `pkgctl`'s command tree, from the packaged binaries themselves: the first one's, with the
    /// others' commands added (the publisher's, which the device's `pkgctl` runs as its own).
    static func commandTree(_ binaries: [String]) throws -> Command {
        var root: [String: Any] = [:]
        for binary in binaries {
            let dump = try PackagingCommand.require(binary, ["--experimental-dump-help"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
            let command = try #require(json["command"] as? [String: Any])
            if root.isEmpty {
                root = command
            } else {
                root["subcommands"] = (root["subcommands"] as? [[String: Any]] ?? []) + (command["subcommands"] as? [[String: Any]] ?? [])
            }
        }
        return Command(root, path: [])
    }

    /// The lines of each `.Sh` section of an mdoc page, by section name.
    static func sections(_ page: String) -> [String: [String]] {
        var sections: [String: [String]] = [:]
        var current = ""
        for line in page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix(".Sh ") {
                current = String(line.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                sections[current, default: []] = []
            } else if !current.isEmpty {
                sections[current, default: []].append(line)
            }
        }
        return sections
    }

    /// Roff text as it reads: `\e` a backslash, `\&` nothing, `\-` a minus, `\(dq` a quote.
    static func unescaped(_ roff: String) -> String {
        roff.replacingOccurrences(of: "\\&", with: "").replacingOccurrences(of: "\\-", with: "-")
            .replacingOccurrences(of: "\\(dq", with: "\"").replacingOccurrences(of: "\\e", with: "\\")
    }

    /// The examples of an EXAMPLES section: each literal display (`.Bd -literal` … `.Ed`) with
    /// the text before it, its lines joined where one ends with a backslash.
    static func examples(_ lines: [String]) -> [(explanation: String, commands: [String])] {
        var result: [(String, [String])] = []
        var text: [String] = [], display: [String]? = nil
        for line in lines {
            if line.hasPrefix(".Bd -literal") {
                display = []
            } else if line == ".Ed", let shown = display {
                var commands: [String] = []
                var pending = ""
                for row in shown.map(unescaped) {
                    if row.hasSuffix("\\") { pending += String(row.dropLast()) + " "; continue }
                    commands.append(pending + row)
                    pending = ""
                }
                if !pending.isEmpty { commands.append(pending) }
                result.append((text.joined(separator: " "), commands))
                text = []
                display = nil
            } else if display != nil {
                display?.append(line)
            } else if !line.hasPrefix(".") {
                text.append(unescaped(line))
            }
        }
        return result
    }

    /// A shell command line as words, quotes removed; the unquoted operators `|`, `||`, `&&`,
    /// `;`, `<` and `>` are words of their own.
    static func words(_ line: String) -> [String] {
        var words: [String] = [], word = "", inWord = false
        var quote: Character? = nil
        var characters = line[...]
        while let character = characters.popFirst() {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == "\\", let next = characters.popFirst() {
                word.append(next)
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else if "|&;<>".contains(character) {
                if inWord { words.append(word) }
                var op = String(character)
                if let next = characters.first, next == character, character != ";" { op.append(characters.removeFirst()) }
                words.append(op)
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// What is wrong with the `pkgctl` invocations of one command line (none: empty), and the
    /// commands they run.
    static func check(_ line: String, against root: Command) -> (problems: [String], commands: [[String]]) {
        var problems: [String] = [], commands: [[String]] = []
        var simple: [[String]] = [[]]
        for word in words(line) {
            if ["|", "||", "&&", ";"].contains(word) { simple.append([]) } else { simple[simple.count - 1].append(word) }
        }
        for var argv in simple {
            // Leading variable assignments (PKGCTL_UPDATE_KEEP=5 pkgctl config).
            while let first = argv.first, first.range(of: "^[A-Za-z_][A-Za-z0-9_]*=", options: .regularExpression) != nil {
                argv.removeFirst()
            }
            guard argv.first == "pkgctl" else { continue }
            var command = root
            var rest = argv.dropFirst()
            while let next = rest.first, let child = command.subcommands[next] {
                command = child
                rest = rest.dropFirst()
            }
            commands.append(command.path)
            var positionals = 0
            var given: Set<String> = []
            var endOfOptions = false
            while let word = rest.popFirst() {
                if word == "<" || word == ">" || word == ">>" {
                    _ = rest.popFirst()
                } else if !endOfOptions, word == "--" {
                    endOfOptions = true
                } else if !endOfOptions, word.hasPrefix("-"), word != "-" {
                    let name = String(word.prefix { $0 != "=" })
                    guard let takesValue = command.names[name] else {
                        problems.append("`\(command.line)` has no \(name)")
                        continue
                    }
                    given.insert(name)
                    if takesValue, !word.contains("=") {
                        if rest.popFirst() == nil { problems.append("\(name) has no value") }
                    }
                } else {
                    positionals += 1
                }
            }
            if !command.subcommands.isEmpty, command.positionals.maximum == 0, positionals > 0 || given.isEmpty {
                problems.append("`\(command.line)` needs a subcommand")
            } else if positionals < command.positionals.required || positionals > command.positionals.maximum {
                let (least, most) = command.positionals
                let takes = most == 0 ? "no" : most == .max ? "\(least) or more" : least == most ? "\(least)" : "\(least) to \(most)"
                problems.append("`\(command.line)` takes \(takes) arguments, given \(positionals)")
            }
            for names in command.requiredOptions where given.isDisjoint(with: names) {
                problems.append("`\(command.line)` needs \(names.joined(separator: "/"))")
            }
        }
        return (problems, commands)
    }

    @Test(.enabled(if: DebianPackage.isAvailable, "needs PKGCTL_DEB, the .deb scripts/package builds (scripts/test)"))
    func everyCommandsPageHasADescriptionAndExamplesThatUseOnlyTheCommandsOwnFlags() throws {
        let unpacked = try DebianPackage.unpack([DebianPackage.path, DebianPackage.publisherPath])
        let root = try Self.commandTree([unpacked.path("usr/bin/pkgctl"), unpacked.path(DebianPackage.publisherBinary)])
        let commands = root.all
        #expect(commands.count >= 20, "the command tree: \(commands.map(\.line))")
        for command in commands {
            let file = unpacked.path(command.page)
            guard FileManager.default.fileExists(atPath: file) else {
                Issue.record("\(command.line): no man page \(command.page)")
                continue
            }
            let page = try PackagingCommand.require("/bin/sh", ["-c", "gzip -dc \"$0\"", file])
            let sections = Self.sections(page)

            // DESCRIPTION: prose (before the list of options), more than a line of it.
            let description = (sections["DESCRIPTION"] ?? []).prefix { !$0.hasPrefix(".Bl") }
                .filter { !$0.hasPrefix(".") }.map(Self.unescaped).joined(separator: " ")
            let wordCount = description.split(separator: " ").count
            #expect(wordCount >= 20, "\(command.page): DESCRIPTION has \(wordCount) words of prose: \(description)")
            #expect(!description.contains("Examples:"), "\(command.page): the examples stayed in DESCRIPTION")

            // EXAMPLES: each an explanation and commands; one at least runs this command.
            guard let lines = sections["EXAMPLES"] else {
                Issue.record("\(command.page): no EXAMPLES section (sections: \(sections.keys.sorted()))")
                continue
            }
            let examples = Self.examples(lines)
            #expect(!examples.isEmpty, "\(command.page): EXAMPLES has no example: \(lines)")
            var ran: [[String]] = []
            for example in examples {
                #expect(!example.explanation.trimmingCharacters(in: .whitespaces).isEmpty,
                        "\(command.page): an example without a line saying what it does: \(example.commands)")
                for line in example.commands {
                    let (problems, invoked) = Self.check(line, against: root)
                    #expect(!invoked.isEmpty, "\(command.page): an example that runs no pkgctl command: \(line)")
                    #expect(problems.isEmpty, "\(command.page): \(line): \(problems.joined(separator: "; "))")
                    ran += invoked
                }
            }
            #expect(ran.contains { $0.starts(with: command.path) },
                    "\(command.page): no example runs `\(command.line)`; they run \(ran.map { (["pkgctl"] + $0).joined(separator: " ") })")
        }
    }

    /// The checks above, on lines they must refuse: they would pass anything otherwise.
    @Test func theExampleCheckRefusesFlagsArgumentsAndCommandsTheTreeLacks() throws {
        let tree = """
            {"commandName": "pkgctl", "subcommands": [
              {"commandName": "gc", "arguments": [
                {"kind": "option", "isOptional": true, "names": [{"kind": "long", "name": "keep"}]},
                {"kind": "flag", "isOptional": true, "names": [{"kind": "short", "name": "h"}, {"kind": "long", "name": "help"}]}]},
              {"commandName": "keygen", "arguments": [
                {"kind": "option", "isOptional": false, "names": [{"kind": "long", "name": "out"}]}]},
              {"commandName": "verify", "arguments": [{"kind": "positional", "isOptional": true}]}]}
            """
        let root = Command(try #require(try JSONSerialization.jsonObject(with: Data(tree.utf8)) as? [String: Any]), path: [])
        #expect(Self.check("pkgctl gc --keep 3", against: root).problems.isEmpty)
        #expect(Self.check("pkgctl gc --keep=3 -h", against: root).problems.isEmpty)
        #expect(Self.check("X=1 pkgctl verify 'a b' && pkgctl keygen --out k", against: root).commands == [["verify"], ["keygen"]])
        #expect(Self.check("pkgctl gc --kep", against: root).problems == ["`pkgctl gc` has no --kep"])
        #expect(Self.check("pkgctl gc --keep", against: root).problems == ["--keep has no value"])
        #expect(Self.check("pkgctl gc extra", against: root).problems == ["`pkgctl gc` takes no arguments, given 1"])
        #expect(Self.check("pkgctl verify a b", against: root).problems == ["`pkgctl verify` takes 0 to 1 arguments, given 2"])
        #expect(Self.check("pkgctl keygen", against: root).problems == ["`pkgctl keygen` needs --out"])
        #expect(Self.check("pkgctl colllect", against: root).problems == ["`pkgctl` needs a subcommand"])
        #expect(Self.words(#"pkgctl a --h '*.html: X: y' "q" b\ c <in"#) == ["pkgctl", "a", "--h", "*.html: X: y", "q", "b c", "<", "in"])
    }
}
