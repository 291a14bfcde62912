/// Whether a file's path says its bytes never change under it: a name carrying the
/// content hash a bundler wrote, or a folder a framework keeps for such files.
/// Tuned on the built front-ends of real wheels (streamlit, jupyterlab, notebook,
/// gradio, bokeh: `Tests/.../ContentHashCorpusTests.swift`) for no false positive:
/// a miss costs a revalidation, a false positive serves stale bytes for a year.
///
/// Recognised, in the file name's stem (the name without its extension):
/// - a dot-separated segment after the first that is lower-case hex of 8 to 64
///   characters with a letter and a digit (webpack `[name].[contenthash].js`,
///   Parcel, `9330.d29313d4.chunk.js`), or a token of 8 (below);
/// - a first segment of 16 to 64 such hex characters (webpack's `[hash][ext]` assets);
/// - after the last `-` of the stem's last segment: such hex (`main-5d41402abc.css`),
///   or the 8 characters after a `-` that a Rollup or Vite `[name]-[hash]` writes,
///   with up to two digits after them (Rollup's suffix for equal names), or esbuild's
///   upper-case base32 (`chunk-NGNAAXSQ.js`);
/// - a path inside `_next/static/` (Next.js) or `_app/immutable/` (SvelteKit).
///
/// A token of 8 is base64url (letters, digits, `_`, `-`), not all digits (a date),
/// with a digit, `_` or `-` and not otherwise all lower case; or letters only with 2
/// to 7 capitals that do not read as words (`SemiBold`, `ReactDOM`, `HTMLview`).
/// Lower-case or capitalised words (`validate`, `Settings`) never pass.
enum ContentHashedName {
    static func matches(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        if inImmutableFolder(path) { return true }
        let name = path[((path.lastIndex(of: slash) ?? -1) + 1)...]
        guard let extensionDot = name.lastIndex(of: dot) else { return false }
        let stem = name[..<extensionDot]
        var segments = stem.split(separator: dot, omittingEmptySubsequences: false)[...]
        guard let first = segments.popFirst() else { return false }
        if (16...64).contains(first.count), isHex(first) { return true }
        for segment in segments where isHex(segment) || isToken(segment) { return true }
        let last = segments.last ?? first
        if let dash = last.lastIndex(of: minus), isHex(last[(dash + 1)...]) { return true }
        var core = last
        for _ in 0..<2 where core.count > 9 && core[core.endIndex - 9] != minus && isDigit(core[core.endIndex - 1]) {
            core = core.dropLast()
        }
        guard core.count > 9, core[core.endIndex - 9] == minus else { return false }
        let tail = core.suffix(8)
        return isToken(tail) || isBase32Upper(tail)
    }

    private static let slash = UInt8(ascii: "/"), dot = UInt8(ascii: "."), minus = UInt8(ascii: "-")

    /// `_next/static/` or `_app/immutable/` as whole components of the path's folders.
    private static func inImmutableFolder(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: Slice<UnsafeBufferPointer<UInt8>>?
        for component in path.split(separator: slash, omittingEmptySubsequences: false).dropLast() {
            if let previous,
               (previous.elementsEqual("_next".utf8) && component.elementsEqual("static".utf8))
                || (previous.elementsEqual("_app".utf8) && component.elementsEqual("immutable".utf8)) {
                return true
            }
            previous = component
        }
        return false
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }

    /// Lower-case hex of 8 to 64 characters with a letter and a digit.
    private static func isHex(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard (8...64).contains(text.count) else { return false }
        var letters = false, digits = false
        for byte in text {
            if isDigit(byte) {
                digits = true
            } else if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f") {
                letters = true
            } else {
                return false
            }
        }
        return letters && digits
    }

    /// Eight characters of esbuild's base32: capitals and the digits 2 to 7.
    private static func isBase32Upper(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        text.count == 8 && text.allSatisfy { isUpper($0) || ($0 >= UInt8(ascii: "2") && $0 <= UInt8(ascii: "7")) }
    }

    /// Eight base64url characters that read as a hash, not a word (see the type's comment).
    private static func isToken(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard text.count == 8 else { return false }
        var digits = 0, marks = 0, upper = 0, lower = 0
        for byte in text {
            if isDigit(byte) { digits += 1 } else if isUpper(byte) { upper += 1 } else if isLower(byte) { lower += 1 }
            else if byte == UInt8(ascii: "_") || byte == minus { marks += 1 } else { return false }
        }
        if digits == 8 { return false }
        // With a digit, `_` or `-`, still a capital: `brands-4` and `solid-90` (Font Awesome's
        // `fa-brands-400`, less Rollup's numeric suffix) are words and numbers.
        if digits + marks > 0 { return upper > 0 }
        guard (2...7).contains(upper) else { return false }
        return !readsAsWords(Array(text))
    }

    /// Whether letters read as at most three words: capitalised or lower-case words of
    /// three letters or more whose lower-case letters are at least a quarter vowels
    /// (`Semi|Bold`, `use|State`), and acronyms of two to four capitals (`React|DOM`,
    /// `HTML|view`). A random hash rarely does (`Cldk|Otlp`, `BGYNDA|Pw`).
    private static func readsAsWords(_ letters: [UInt8]) -> Bool {
        var words = 0
        var index = 0
        while index < letters.count {
            words += 1
            var end = index
            while end < letters.count, isUpper(letters[end]) { end += 1 }
            let capitals = end - index
            if end < letters.count, capitals > 1 {
                end -= 1  // the last capital starts the next, capitalised word: an acronym ends here
            }
            if end == letters.count || capitals > 1 {
                guard (2...4).contains(end - index) else { return false }
                index = end
                continue
            }
            var vowels = 0, lowers = 0
            while end < letters.count, isLower(letters[end]) {
                if "aeiouy".utf8.contains(letters[end]) { vowels += 1 }
                lowers += 1
                end += 1
            }
            guard end - index >= 3, vowels > 0, vowels * 4 >= lowers else { return false }
            index = end
        }
        return words <= 3
    }
}
