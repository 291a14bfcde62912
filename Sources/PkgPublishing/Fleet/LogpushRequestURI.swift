import PkgCore

/// The request target in a Cloudflare Logpush line of the `http_requests` dataset: one JSON
/// object a line, whose `ClientRequestURI` is the path and query the client asked for
/// (`ClientRequestPath` is the path alone; the dataset has no field for the query alone).
/// The value's JSON escapes are undone: `\u0026` for `&` (as Go's encoder writes it), `\/`,
/// `\"`, `\\`, the one-letter escapes, and `\uXXXX` (surrogate pairs too) as UTF-8.
enum LogpushRequestURI {
    /// What a line holds.
    enum Found: Equatable {
        /// No `ClientRequestURI` string.
        case absent
        /// The whole URI.
        case whole
        /// The start of a URI cut by the line's end or by an escape that does not read.
        case cut
    }

    /// Writes the line's `ClientRequestURI`, unescaped, into `uri` (emptied first).
    static func read(_ line: UnsafeBufferPointer<UInt8>, into uri: inout [UInt8]) -> Found {
        uri.removeAll(keepingCapacity: true)
        guard var index = line.offset(after: "\"ClientRequestURI\"") else { return .absent }
        func skipSpace() { while index < line.count, [0x20, 0x09, 0x0d].contains(line[index]) { index += 1 } }
        skipSpace()
        guard index < line.count, line[index] == UInt8(ascii: ":") else { return .absent }
        index += 1
        skipSpace()
        guard index < line.count, line[index] == UInt8(ascii: "\"") else { return .absent }
        index += 1
        while index < line.count {
            let byte = line[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return .whole }
            guard byte == UInt8(ascii: "\\") else {
                uri.append(byte)
                continue
            }
            guard index < line.count else { return .cut }
            let escape = line[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): uri.append(escape)
            case UInt8(ascii: "b"): uri.append(0x08)
            case UInt8(ascii: "f"): uri.append(0x0c)
            case UInt8(ascii: "n"): uri.append(0x0a)
            case UInt8(ascii: "r"): uri.append(0x0d)
            case UInt8(ascii: "t"): uri.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex4(line, at: index) else { return .cut }
                index += 4
                var scalar = Unicode.Scalar(unit)
                if (0xd800..<0xdc00).contains(unit), index + 1 < line.count, line[index] == UInt8(ascii: "\\"),
                   line[index + 1] == UInt8(ascii: "u"), let low = hex4(line, at: index + 2), (0xdc00..<0xe000).contains(low) {
                    index += 6
                    unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
                    scalar = Unicode.Scalar(unit)
                }
                uri += Array(String(scalar ?? "\u{fffd}").utf8)
            default:
                return .cut
            }
        }
        return .cut
    }

    /// The value of the four hex digits at `index`, nil when they are not.
    private static func hex4(_ line: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt32? {
        guard index + 4 <= line.count else { return nil }
        var value: UInt32 = 0
        for byte in line[index..<(index + 4)] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
