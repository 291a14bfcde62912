/// The checks a signed document gets that `JSONDecoder` does not make: no object
/// holds the same key twice (compared after unescaping, so `"a"` and `"\u0061"`
/// are one key), and every key is one the ``JSONKeySchema`` knows. Two readers
/// of a document with a duplicate key can see two documents (Foundation keeps
/// one, Python's `json` the last), and a field one reader ignores can mean
/// something to another; "no byte can change unnoticed" needs both refused.
///
/// Only the structure is walked; values are left to `JSONDecoder`. Nesting is
/// bounded, so hostile input cannot exhaust the stack.
struct StrictJSON {
    /// Deepest nesting of objects and arrays accepted.
    static let maxDepth = 64

    /// Why a document was refused: where (`packages[0].rollout`) and what.
    struct Refusal: Error {
        var reason: String
    }

    private let bytes: [UInt8]
    private var position = 0

    /// Checks `bytes` against `schema`; throws a ``Refusal`` naming the first problem.
    static func check(_ bytes: [UInt8], schema: JSONKeySchema) throws(Refusal) {
        var walker = StrictJSON(bytes: bytes)
        walker.skipSpace()
        try walker.value(schema, path: "", depth: 0)
        walker.skipSpace()
        guard walker.position == bytes.count else { throw Refusal(reason: "text after the document") }
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func value(_ schema: JSONKeySchema, path: String, depth: Int) throws(Refusal) {
        guard position < bytes.count else { throw Refusal(reason: "\(Self.place(path)): ends early") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            guard depth < Self.maxDepth else { throw Refusal(reason: "\(Self.place(path)): nested deeper than \(Self.maxDepth)") }
            try object(schema, path: path, depth: depth + 1)
        case UInt8(ascii: "["):
            guard depth < Self.maxDepth else { throw Refusal(reason: "\(Self.place(path)): nested deeper than \(Self.maxDepth)") }
            try array(schema, path: path, depth: depth + 1)
        case UInt8(ascii: "\""):
            _ = try string(path: path)
        default:
            // A number or a literal: its characters up to the next delimiter.
            let start = position
            while position < bytes.count, !Self.isDelimiter(bytes[position]) { position += 1 }
            guard position > start else { throw Refusal(reason: "\(Self.place(path)): unexpected character") }
        }
    }

    private mutating func object(_ schema: JSONKeySchema, path: String, depth: Int) throws(Refusal) {
        position += 1  // {
        var seen = Set<String>()
        skipSpace()
        if take(UInt8(ascii: "}")) { return }
        while true {
            skipSpace()
            let key = try string(path: path)
            let keyPath = path.isEmpty ? key.escapedForMessage : path + "." + key.escapedForMessage
            guard seen.insert(key).inserted else {
                throw Refusal(reason: "\(Self.place(path)): duplicate key '\(key.escapedForMessage)'")
            }
            var member = JSONKeySchema.value
            if case .object(let known) = schema {
                guard let known = known[key] else {
                    throw Refusal(reason: "\(Self.place(path)): unknown key '\(key.escapedForMessage)'")
                }
                member = known
            }
            skipSpace()
            guard take(UInt8(ascii: ":")) else { throw Refusal(reason: "\(keyPath): expected ':'") }
            skipSpace()
            try value(member, path: keyPath, depth: depth)
            skipSpace()
            if take(UInt8(ascii: "}")) { return }
            guard take(UInt8(ascii: ",")) else { throw Refusal(reason: "\(Self.place(path)): expected ',' or '}'") }
        }
    }

    private mutating func array(_ schema: JSONKeySchema, path: String, depth: Int) throws(Refusal) {
        position += 1  // [
        var element = JSONKeySchema.value
        if case .array(let elements) = schema { element = elements }
        skipSpace()
        if take(UInt8(ascii: "]")) { return }
        var index = 0
        while true {
            skipSpace()
            try value(element, path: "\(path)[\(index)]", depth: depth)
            index += 1
            skipSpace()
            if take(UInt8(ascii: "]")) { return }
            guard take(UInt8(ascii: ",")) else { throw Refusal(reason: "\(Self.place(path)): expected ',' or ']'") }
        }
    }

    /// A string starting at `position`, unescaped.
    private mutating func string(path: String) throws(Refusal) -> String {
        guard take(UInt8(ascii: "\"")) else { throw Refusal(reason: "\(Self.place(path)): expected a string") }
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        func flushRaw() throws(Refusal) {
            guard !raw.isEmpty else { return }
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw Refusal(reason: "\(Self.place(path)): a string is not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                try flushRaw()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRaw()
                scalars.append(try escape(path: path))
            default:
                raw.append(byte)
            }
        }
        throw Refusal(reason: "\(Self.place(path)): unterminated string")
    }

    /// The character of the escape after a backslash (a surrogate pair as one).
    private mutating func escape(path: String) throws(Refusal) -> Unicode.Scalar {
        guard position < bytes.count else { throw Refusal(reason: "\(Self.place(path)): unterminated string") }
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{8}"
        case UInt8(ascii: "f"): return "\u{c}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let high = try hex4(path: path)
            if (0xD800..<0xDC00).contains(high), position + 1 < bytes.count,
               bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                position += 2
                let low = try hex4(path: path)
                if (0xDC00..<0xE000).contains(low),
                   let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                    return scalar
                }
            }
            guard let scalar = Unicode.Scalar(high) else {
                throw Refusal(reason: "\(Self.place(path)): a lone surrogate escape")
            }
            return scalar
        default:
            throw Refusal(reason: "\(Self.place(path)): invalid escape")
        }
    }

    private mutating func hex4(path: String) throws(Refusal) -> UInt32 {
        guard position + 4 <= bytes.count else { throw Refusal(reason: "\(Self.place(path)): short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = hexDigitValue(byte) else { throw Refusal(reason: "\(Self.place(path)): bad \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        position += 4
        return value
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        [UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(byte)
    }

    private static func place(_ path: String) -> String { path.isEmpty ? "top level" : path }
}
