import PkgCore

extension String {
    /// The string as HTML or SVG text or a quoted attribute value: `&`, `<`, `>`, `"` and `'`
    /// as character references, and controls other than tab and newline dropped. Every string
    /// from a log (package names and versions are anyone's to send) goes through it.
    var escapedForHTML: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7f..<0xa0).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
