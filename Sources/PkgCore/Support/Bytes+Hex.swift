extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal text of these bytes, as in `sha256sum` output.
    package var hexString: String {
        let bytes = withContiguousStorageIfAvailable { Array($0) } ?? Array(self)
        // Written into the string's own storage: appending Characters costs ~1k instructions a
        // byte (a SHA-256 digest's 32 were most of a 404's work in `pkgctl serve`).
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = hexDigits[Int(byte >> 4)]
                text[2 * index + 1] = hexDigits[Int(byte & 0x0f)]
            }
            return bytes.count * 2
        }
    }
}

private let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

extension String {
    /// Whether this is a SHA-256 digest as pkgctl writes them: 64 lower-case hex digits.
    package var isSHA256Hex: Bool { isLowerHex(digits: 64) }

    /// Whether the text is exactly `digits` lower-case hexadecimal digits.
    func isLowerHex(digits: Int) -> Bool {
        utf8.count == digits && utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}

/// The value of one hexadecimal digit (either case), or nil for any other byte.
@inline(__always)
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
}
