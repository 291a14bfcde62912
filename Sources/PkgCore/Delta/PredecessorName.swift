/// The name a file keeps across releases once its content hash is taken out, so a
/// bundler's rewritten chunk finds its predecessor in the older release:
/// `ArrowVegaLiteChart.D_YO7sq8.js` and `ArrowVegaLiteChart.C7VsfKqo.js` (Vite,
/// Rollup), `9330.d29313d4.chunk.js` (webpack), `index-BDoW_Vkf.js` (Vite's
/// `[name]-[hash]`) share a key. A dot-separated segment after the first and
/// before the extension that looks like a hash becomes `*`: 6 to 64 letters,
/// digits, `_` or `-`, with a digit, both cases of letters, `_` or `-` in it (a
/// base64url hash often has no digit). A first segment ending in `-` and 8 such
/// characters loses them. A wrong guess costs only compression: the predecessor
/// is a reference the delta may use, never trusted content.
package enum PredecessorName {
    /// The path with the hash-like segments of its file name replaced by `*`.
    package static func key(of path: String) -> String {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var segments = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if segments.count > 2 {
            for position in 1..<(segments.count - 1) where isHashLike(Substring(segments[position])) {
                segments[position] = "*"
            }
        }
        let first = segments[0].utf8
        if first.count > 9, first[first.index(first.endIndex, offsetBy: -9)] == UInt8(ascii: "-"),
           isHashLike(Substring(segments[0]).suffix(8)) {
            segments[0] = String(segments[0].dropLast(8)) + "*"
        }
        return directory + segments.joined(separator: ".")
    }

    private static func isHashLike(_ text: Substring) -> Bool {
        guard (6...64).contains(text.utf8.count) else { return false }
        var digits = false, upper = false, lower = false, marks = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"): lower = true
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): upper = true
            case UInt8(ascii: "_"), UInt8(ascii: "-"): marks = true
            default: return false
            }
        }
        return digits || marks || (upper && lower)
    }
}
