/// The first key that occurs twice in one object of the JSON text `bytes`, keys
/// compared after unescaping (as UTF-16 code units: `"a"` and `"\u0061"` are one
/// key), or nil when every object's keys are distinct. Written apart from PkgCore's
/// `StrictJSON` to check it: one flat pass with a stack of the open containers, no
/// recursion and no validation, so it is meant for text a JSON parser has accepted.
public func firstDuplicateKey(in bytes: [UInt8]) -> String? {
    var open: [Set<[UInt16]>?] = []  // each open container's keys so far; nil for an array
    var keyNext = false  // the next string is a key: just after `{`, or after `,` in an object
    var i = 0
    while i < bytes.count {
        let byte = bytes[i]
        i += 1
        switch byte {
        case UInt8(ascii: "{"): open.append([]); keyNext = true
        case UInt8(ascii: "["): open.append(nil); keyNext = false
        case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = open.popLast(); keyNext = false
        case UInt8(ascii: ","): keyNext = open.last.map { $0 != nil } ?? false
        case UInt8(ascii: "\""):
            var units: [UInt16] = []
            var run: [UInt8] = []  // raw UTF-8 since the last escape
            while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                guard bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count else { run.append(bytes[i]); i += 1; continue }
                units += String(decoding: run, as: UTF8.self).utf16
                run = []
                let escaped = bytes[i + 1]
                i += 2
                switch escaped {
                case UInt8(ascii: "u"):
                    let hex = String(decoding: bytes[i..<min(i + 4, bytes.count)], as: UTF8.self)
                    units.append(UInt16(hex, radix: 16) ?? 0xFFFD)
                    i += 4
                case UInt8(ascii: "b"): units.append(0x08)
                case UInt8(ascii: "f"): units.append(0x0C)
                case UInt8(ascii: "n"): units.append(0x0A)
                case UInt8(ascii: "r"): units.append(0x0D)
                case UInt8(ascii: "t"): units.append(0x09)
                default: units.append(UInt16(escaped))  // `"`, `\`, `/`
                }
            }
            i += 1  // the closing quote
            units += String(decoding: run, as: UTF8.self).utf16
            if keyNext {
                keyNext = false
                if !open[open.count - 1]!.insert(units).inserted { return String(decoding: units, as: UTF16.self) }
            }
        default: break  // space, `:`, numbers and literals
        }
    }
    return nil
}
