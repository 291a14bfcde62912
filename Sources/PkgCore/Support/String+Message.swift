extension String {
    /// Characters of outside input (an entry name, a key name) kept in a message.
    static let messageLimit = 120

    /// This text as it may appear in a one-line message or log line: control characters
    /// escaped (`\u{a}`), and cut after ``messageLimit`` characters with the
    /// full length noted, so hostile input can neither break nor flood a log line.
    public var escapedForMessage: String {
        // Short printable ASCII (a usual URL) is kept as it is.
        if utf8.count <= Self.messageLimit,
           utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 >= 0x20 && $0 < 0x7f } }) == true {
            return self
        }
        var text = ""
        var kept = 0
        for scalar in unicodeScalars {
            if kept == Self.messageLimit {
                return text + "…(\(utf8.count) bytes)"
            }
            let value = scalar.value
            if value < 0x20 || value == 0x7f || (0x80...0x9f).contains(value) {
                text += "\\u{" + String(value, radix: 16) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
            kept += 1
        }
        return text
    }
}
