/// Lexical operations on slash-separated paths (no filesystem access), as
/// NSString's path methods did, without needing Foundation's ICU-backed parts.
///
/// Paths are split at the byte `/`, as the kernel splits them: a `/` followed by a
/// combining mark is one Character to Swift but still a separator to `open`.
package enum PathName {
    private static let slash = UInt8(ascii: "/")

    /// The directory holding `path`, as dirname(1) gives it: `/a/b` → `/a`, `/a` → `/`,
    /// `a` → `.` (the working directory), `a/b/` → `a`.
    package static func parent(_ path: String) -> String {
        var trimmed = Substring(path).utf8
        while trimmed.count > 1, trimmed.last == slash { trimmed = trimmed.dropLast() }
        guard let separator = trimmed.lastIndex(of: slash) else { return "." }
        return separator == trimmed.startIndex ? "/" : String(Substring(trimmed[..<separator]))
    }

    /// The last component of `path`: `/a/b/` → `b`.
    package static func lastComponent(_ path: String) -> String {
        guard let last = path.utf8.split(separator: slash).last else { return path.utf8.first == slash ? "/" : "" }
        return String(Substring(last))
    }

    /// An absolute `path` with `.`, `..` and repeated or trailing slashes removed
    /// (`..` above the root stays at the root); symbolic links are not resolved.
    static func standardized(_ path: String) -> String {
        var components: [Substring] = []
        for bytes in path.utf8.split(separator: slash) {
            let component = Substring(bytes)
            if component == "." { continue }
            if component == ".." {
                _ = components.popLast()
            } else {
                components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
