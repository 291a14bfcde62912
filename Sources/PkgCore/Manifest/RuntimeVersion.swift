/// The version of the host app a device runs (its native shell, its bridge): what
/// ``RuntimeRange``s are matched against. `MAJOR[.MINOR[.PATCH]][-PRE][+BUILD]`, numbers
/// of 1-9 digits without leading zeros; a missing part is 0.
public struct RuntimeVersion: Sendable, Hashable, CustomStringConvertible {
    /// The version as given.
    public let text: String

    /// Parses `text`; nil when it is not such a version.
    public init?(_ text: String) {
        guard text.utf8.count <= 64 else { return nil }
        let (withoutBuild, build) = Self.splitOnce(Substring(text), at: "+")
        let (core, preRelease) = Self.splitOnce(withoutBuild, at: "-")
        let numbers = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(numbers.count), numbers.allSatisfy(Self.isNumber),
              preRelease.map(Self.isIdentifierList) ?? true, build.map(Self.isIdentifierList) ?? true
        else { return nil }
        self.text = text
    }

    /// The version as given.
    public var description: String { text }

    /// A version number part: 1-9 digits, no leading zero.
    static func isNumber(_ part: Substring) -> Bool {
        (1...9).contains(part.utf8.count) && part.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
            && (part.utf8.count == 1 || part.first != "0")
    }

    /// A pre-release or build: dot-separated, non-empty identifiers of `[0-9A-Za-z-]`.
    static func isIdentifierList(_ text: Substring) -> Bool {
        text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy {
                (48...57).contains($0) || (65...90).contains($0) || (97...122).contains($0) || $0 == UInt8(ascii: "-")
            }
        }
    }

    /// `text` before and after the first `separator`.
    static func splitOnce(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }
}
