/// Rewrites the argument parser's refusal of a mistyped command or option into one that
/// says what was probably meant: every close name, a name the typed word begins first
/// (`--rout` is `--route` before it is `--root`), and for an unknown command the list of commands.
package enum UsageCorrection {
    /// The message for the parser's `message` about the command line `words` (without the
    /// program's name); other messages come back unchanged.
    package static func message(for message: String, words: [String], tree: CommandTree?) -> String {
        guard let tree else { return message }
        let (command, path, rest) = tree.command(named: words)
        let commandLine = path.joined(separator: " ")
        // A word where a command's subcommand goes is the mistake, whatever else the parser found.
        if !command.commandNames.isEmpty, let typed = rest.first, !typed.hasPrefix("-") {
            let close = closest(to: typed, among: command.commandNames, comparing: { Substring($0) })
            let meant = close.isEmpty ? "" : " Did you mean \(alternatives(close))?"
            return "unknown command '\(typed)' for '\(commandLine)'.\(meant) Commands: \(command.commandNames.joined(separator: ", "))"
        }
        // An option the command lacks is the mistake, even where the parser first found a required
        // option missing (`--verison 3.18.5` leaves `--version` out).
        if let typed = quoted(in: message, after: "Unknown option '") ?? unknownOption(in: rest, of: command) {
            var seen = Set<String>()
            let options = command.longOptions.filter { seen.insert($0).inserted }  // `--version` may be listed twice
            let close = closest(to: typed, among: options, comparing: { $0.drop { $0 == "-" } })
            guard !close.isEmpty else {
                return "Unknown option '\(typed)' for '\(commandLine)' (\(commandLine) --help lists its options)"
            }
            return "Unknown option '\(typed)' for '\(commandLine)'. Did you mean \(alternatives(close))?"
        }
        return message
    }

    /// The first `--name` among `words` (up to a `--`) that `command` has no option of.
    private static func unknownOption(in words: ArraySlice<String>, of command: CommandTree) -> String? {
        let options = Set(command.longOptions)
        return words.prefix { $0 != "--" }.first { word in
            word.hasPrefix("--") && !options.contains(String(word.prefix { $0 != "=" }))
        }.map { String($0.prefix { $0 != "=" }) }
    }

    /// Up to three of `candidates` close to `typed`: those it begins, then those within a
    /// few edits (one for every three characters, at least one), nearest first.
    static func closest(to typed: String, among candidates: [String], comparing key: (String) -> Substring) -> [String] {
        let word = Array(key(typed))
        guard !word.isEmpty else { return [] }
        let limit = max(1, word.count / 3)
        let begun = candidates.filter { key($0).count > word.count && key($0).hasPrefix(String(word)) }
        let near = candidates.map { ($0, editDistance(word, Array(key($0)))) }
            .filter { $0.1 <= limit && !begun.contains($0.0) }
            .sorted { $0.1 < $1.1 }
            .map(\.0)
        return Array((begun + near).prefix(3))
    }

    /// Insertions, deletions, substitutions and swaps of neighbours that turn `a` into `b`
    /// (optimal string alignment distance).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
    private static func alternatives(_ names: [String]) -> String {
        let quoted = names.map { "'\($0)'" }
        return quoted.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + quoted.last!
    }

    /// The text between `prefix` and the next `'` in `message`, when `message` has `prefix`.
    private static func quoted(in message: String, after prefix: String) -> String? {
        guard let start = message.firstRange(of: prefix)?.upperBound,
              let end = message[start...].firstIndex(of: "'") else { return nil }
        return String(message[start..<end])
    }
}
