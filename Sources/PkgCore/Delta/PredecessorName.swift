/// The name a file keeps across releases once its content hash is taken out, so a
/// bundler's rewritten chunk (`index.B1ZQh7Gd.js` → `index.Cx9Lm2Qa.js`,
/// `9330.d29313d4.chunk.js`, `index-BDoW_Vkf.js`) finds its predecessor in the
/// older release. A dot-separated segment that looks like a hash (6 to 64 letters,
/// digits, `_` or `-`, with at least one digit) becomes `*`, as does a trailing
/// `-HASH` of 8 or more such characters. A wrong guess costs only compression:
/// the predecessor is a reference the delta may use, never trusted content.
enum PredecessorName {
    /// The path with hash-like segments of its file name replaced by `*`.
    static func key(of path: String) -> String {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let segments = name.split(separator: ".", omittingEmptySubsequences: false).map { segment -> String in
            if isHashLike(segment) { return "*" }
            if let dash = segment.lastIndex(of: "-"), segment.distance(from: dash, to: segment.endIndex) > 8,
               isHashLike(segment[segment.index(after: dash)...]) {
                return segment[..<dash] + "-*"
            }
            return String(segment)
        }
        return directory + segments.joined(separator: ".")
    }

    private static func isHashLike(_ text: Substring) -> Bool {
        guard (6...64).contains(text.utf8.count) else { return false }
        var digits = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"): continue
            default: return false
            }
        }
        return digits > 0
    }
}
