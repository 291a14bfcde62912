/// The fuzz input read front to back as the script of calls: each read takes a byte, or
/// zero once the input is used up (so every script ends).
struct ByteScript {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isEmpty: Bool { index >= bytes.count }

    mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// Up to `limit` bytes, the count read first; NUL bytes dropped (they would end a C string).
    mutating func string(limit: Int) -> String {
        let count = Int(next()) % (limit + 1)
        var result: [UInt8] = []
        for _ in 0..<count where !isEmpty {
            let byte = next()
            if byte != 0 { result.append(byte) }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
