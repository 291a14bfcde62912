/// The host runtimes a release fits: a semver range as npm writes them (`>=2.3.0 <3.0.0`,
/// `2.x`, `~2.4`, `^3.1.0`, `1.2.0 - 1.4`, `2.x || >=3.5.0`), like CodePush's
/// `targetBinaryVersion`. Comparators separated by spaces must all hold, `||` separates
/// alternatives. An x-range, tilde or caret ends below the next version's first
/// pre-release (`2.x` is `>=2.0.0 <3.0.0-0`), so a host's `3.0.0-beta` is not a 2.x;
/// pre-releases otherwise compare by SemVer precedence.
///
/// Two ranges are equal when they mean the same comparators (`2.x` == `>=2.0.0 <3.0.0-0`):
/// equal ranges are one release slot of a package in the manifest.
public struct RuntimeRange: Sendable, Hashable, CustomStringConvertible {
    /// The range as written, whitespace collapsed.
    public let text: String
    /// The alternatives, each a list of comparators that must all hold.
    private let alternatives: [[Comparator]]

    /// Longest range text accepted.
    public static let maxLength = 256

    /// Parses `text`; nil when it is not a range (``refusal(_:)`` says why).
    public init?(_ text: String) {
        guard case .success(let range) = Self.parse(text) else { return nil }
        self = range
    }

    private init(text: String, alternatives: [[Comparator]]) {
        self.text = text
        self.alternatives = alternatives
    }

    /// Why `text` is not a range, or nil when it is one.
    public static func refusal(_ text: String) -> String? {
        if case .failure(let reason) = parse(text) { return reason.message }
        return nil
    }

    /// Whether the host runtime `version` is in the range.
    public func contains(_ version: RuntimeVersion) -> Bool {
        let value = PackageVersion(version.text)
        return alternatives.contains { $0.allSatisfy { $0.holds(for: value) } }
    }

    /// The range as written.
    public var description: String { text }

    /// Equal when the comparators are (the text may differ).
    public static func == (lhs: RuntimeRange, rhs: RuntimeRange) -> Bool {
        lhs.alternatives == rhs.alternatives
    }

    /// Hashes the comparators, as ``==`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(alternatives)
    }

    // MARK: - Parsing

    private struct Refusal: Error {
        var message: String
    }

    private static func parse(_ text: String) -> Result<RuntimeRange, Refusal> {
        guard text.utf8.count <= maxLength else { return .failure(Refusal(message: "longer than \(maxLength) bytes")) }
        guard text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) else {
            return .failure(Refusal(message: "only printable ASCII is allowed"))
        }
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        let collapsed = words.joined(separator: " ")
        guard !collapsed.isEmpty else { return .failure(Refusal(message: "empty (write * for any runtime)")) }
        var alternatives: [[Comparator]] = []
        let parts = collapsed.split(separator: "||", omittingEmptySubsequences: false)
        guard parts.count <= 16 else { return .failure(Refusal(message: "more than 16 alternatives")) }
        for part in parts {
            do {
                // Sorted, so the order comparators are written in does not make another slot.
                let found = try comparators(part.split(separator: " ").map(String.init))
                alternatives.append(Set(found).sorted { ($0.bound, $0.op.rawValue) < ($1.bound, $1.op.rawValue) })
            } catch let refusal as Refusal {
                return .failure(refusal)
            } catch {
                return .failure(Refusal(message: "\(error)"))
            }
        }
        return .success(RuntimeRange(text: collapsed, alternatives: alternatives))
    }

    /// The comparators of one alternative, from its space-separated words.
    private static func comparators(_ input: [String]) throws -> [Comparator] {
        // An operator written apart from its version (">= 2.3.0") joins the next word.
        var words: [String] = []
        for word in input {
            if let last = words.last, ["<", "<=", ">", ">=", "=", "~", "^"].contains(last) {
                words[words.count - 1] = last + word
            } else {
                words.append(word)
            }
        }
        guard !words.isEmpty else { throw Refusal(message: "an alternative of '||' is empty") }
        if words.count == 3, words[1] == "-" {
            return try hyphen(from: Partial(words[0]), to: Partial(words[2]))
        }
        var result: [Comparator] = []
        for word in words {
            guard word != "-" else { throw Refusal(message: "'-' must stand between two versions (1.2.0 - 1.4)") }
            result += try simple(word)
        }
        return result
    }

    private static func simple(_ word: String) throws -> [Comparator] {
        for op in [">=", "<=", ">", "<", "=", "~", "^"] where word.hasPrefix(op) {
            guard word.count > op.count else { throw Refusal(message: "'\(op)' needs a version after it") }
            let partial = try Partial(String(word.dropFirst(op.count)))
            switch op {
            case ">=": return [.init(.atLeast, partial.lowest)]
            case ">": return partial.isFull ? [.init(.above, partial.lowest)] : [.init(.atLeast, partial.nextAfterPrefix)]
            case "<": return [.init(.below, partial.isFull ? partial.lowest : partial.lowest + "-0")]
            case "<=": return partial.isFull ? [.init(.atMost, partial.lowest)] : [.init(.below, partial.nextAfterPrefix + "-0")]
            case "~": return partial.tilde
            case "^": return partial.caret
            default: return partial.xRange
            }
        }
        return try Partial(word).xRange
    }

    private static func hyphen(from low: Partial, to high: Partial) throws -> [Comparator] {
        let upper: Comparator = high.isFull ? .init(.atMost, high.lowest) : .init(.below, high.nextAfterPrefix + "-0")
        return (high.numbers.isEmpty ? [] : [upper]) + [.init(.atLeast, low.lowest)]
    }

    // MARK: - Parts

    /// One condition on the runtime, against a canonical `MAJOR.MINOR.PATCH[-PRE]` bound.
    private struct Comparator: Hashable {
        enum Operator: Int, Hashable { case atLeast, above, below, atMost }
        var op: Operator
        var bound: String

        init(_ op: Operator, _ bound: String) {
            self.op = op
            self.bound = bound
        }

        func holds(for version: PackageVersion) -> Bool {
            let bound = PackageVersion(self.bound)
            switch op {
            case .atLeast: return !(version < bound)
            case .above: return bound < version
            case .below: return version < bound
            case .atMost: return !(bound < version)
            }
        }
    }

    /// `MAJOR[.MINOR[.PATCH[-PRE][+BUILD]]]`, where a missing or `x`/`X`/`*` part is a wildcard.
    private struct Partial {
        /// The numbers given, up to the first wildcard.
        var numbers: [Int]
        /// The pre-release of a full version.
        var preRelease: String?

        init(_ text: String) throws {
            let (withoutBuild, build) = RuntimeVersion.splitOnce(Substring(text), at: "+")
            let (core, pre) = RuntimeVersion.splitOnce(withoutBuild, at: "-")
            for list in [pre, build].compactMap({ $0 }) where !RuntimeVersion.isIdentifierList(list) {
                throw Refusal(message: "'\(text.prefix(40))': a pre-release or build must be dot-separated [0-9A-Za-z-]")
            }
            preRelease = pre.map(String.init)
            let parts = core.split(separator: ".", omittingEmptySubsequences: false)
            guard (1...3).contains(parts.count) else {
                throw Refusal(message: "'\(text.prefix(40))' is not a version (MAJOR[.MINOR[.PATCH]])")
            }
            numbers = []
            var wild = false
            for part in parts {
                if part == "x" || part == "X" || part == "*" {
                    wild = true
                } else if !RuntimeVersion.isNumber(part) {
                    throw Refusal(message: "'\(text.prefix(40))' is not a version (MAJOR[.MINOR[.PATCH]], numbers of "
                                  + "1-9 digits without leading zeros, x or * for any)")
                } else if wild {
                    throw Refusal(message: "'\(text.prefix(40))': nothing may follow a wildcard")
                } else {
                    numbers.append(Int(part) ?? 0)
                }
            }
            if preRelease != nil, numbers.count < 3 {
                throw Refusal(message: "'\(text.prefix(40))': only a full MAJOR.MINOR.PATCH may have a pre-release")
            }
        }

        var isFull: Bool { numbers.count == 3 }

        /// The lowest version the partial names (`2` is `2.0.0`).
        var lowest: String {
            let padded = numbers + Array(repeating: 0, count: 3 - numbers.count)
            return padded.map(String.init).joined(separator: ".") + (preRelease.map { "-" + $0 } ?? "")
        }

        /// The first version past the partial's prefix (`2.3` gives `2.4.0`); for a full version, the next patch.
        var nextAfterPrefix: String {
            guard !numbers.isEmpty else { return "0.0.0" }
            var raised = numbers
            raised[raised.count - 1] += 1
            return (raised + Array(repeating: 0, count: 3 - raised.count)).map(String.init).joined(separator: ".")
        }

        /// `2.3` or `2.3.x`: `>=2.3.0 <2.4.0-0`; a full version: exactly it; `*`: any.
        var xRange: [Comparator] {
            if numbers.isEmpty { return [] }
            if isFull { return [.init(.atLeast, lowest), .init(.atMost, lowest)] }
            return [.init(.atLeast, lowest), .init(.below, nextAfterPrefix + "-0")]
        }

        /// `~2.3.4`: `>=2.3.4 <2.4.0-0`; `~2`: `>=2.0.0 <3.0.0-0`.
        var tilde: [Comparator] {
            if numbers.isEmpty { return [] }
            let prefix = Partial(numbers: Array(numbers.prefix(2)))
            return [.init(.atLeast, lowest), .init(.below, prefix.nextAfterPrefix + "-0")]
        }

        /// `^2.3.4`: `>=2.3.4 <3.0.0-0`; the first non-zero part is kept (`^0.2.3`: `<0.3.0-0`).
        var caret: [Comparator] {
            if numbers.isEmpty { return [] }
            let nonZero = numbers.firstIndex(where: { $0 != 0 }) ?? (numbers.count - 1)
            let prefix = Partial(numbers: Array(numbers.prefix(nonZero + 1)))
            return [.init(.atLeast, lowest), .init(.below, prefix.nextAfterPrefix + "-0")]
        }

        private init(numbers: [Int]) {
            self.numbers = numbers
            self.preRelease = nil
        }
    }
}
