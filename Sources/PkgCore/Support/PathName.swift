/// Lexical operations on slash-separated paths (no filesystem access), as
/// NSString's path methods did, without needing Foundation's ICU-backed parts.
enum PathName {
    /// `path` without its last component: `/a/b` → `/a`, `/a` → `/`, `a` → ``.
    static func parent(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "" }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// The last component of `path`: `/a/b/` → `b`.
    static func lastComponent(_ path: String) -> String {
        String(path.split(separator: "/").last ?? (path.hasPrefix("/") ? "/" : ""))
    }

    /// An absolute `path` with `.`, `..` and repeated or trailing slashes removed
    /// (`..` above the root stays at the root); symbolic links are not resolved.
    static func standardized(_ path: String) -> String {
        var components: [Substring] = []
        for component in path.split(separator: "/") where component != "." {
            if component == ".." {
                _ = components.popLast()
            } else {
                components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
