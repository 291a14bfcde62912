/// Compares two strings' ASCII letters ignoring case, without allocating; the
/// overload every `String` comparison takes (lengths first, then bytes).
package func asciiCaseInsensitiveEqual(_ a: String, _ b: String) -> Bool {
    guard a.utf8.count == b.utf8.count else { return false }
    return a.utf8.elementsEqual(b.utf8) { $0 == $1 || lowerASCII($0) == lowerASCII($1) }
}

/// Compares ASCII text ignoring case, without allocating.
package func asciiCaseInsensitiveEqual(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
    var left = a.utf8.makeIterator()
    var right = b.utf8.makeIterator()
    while true {
        let x = left.next(), y = right.next()
        guard let l = x, let r = y else { return x == nil && y == nil }
        if l == r { continue }
        if lowerASCII(l) != lowerASCII(r) { return false }
    }
}

@inline(__always)
func lowerASCII(_ byte: UInt8) -> UInt8 {
    (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
}

extension StringProtocol {
    /// Whether the text contains `needle`, ASCII case-insensitively, without allocating.
    func containsASCIICaseInsensitive(_ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        guard count > 0 else { return true }
        let bytes = needle.utf8Start
        return utf8.withContiguousStorageIfAvailable { haystack -> Bool in
            guard haystack.count >= count else { return false }
            var i = 0
            while i <= haystack.count - count {
                var j = 0
                while j < count, lowerASCII(haystack[i + j]) == bytes[j] { j += 1 }
                if j == count { return true }
                i += 1
            }
            return false
        } ?? String(self).containsASCIICaseInsensitive(needle)
    }
}
