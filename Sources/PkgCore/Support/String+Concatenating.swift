extension String {
    /// `parts` one after another, made in one allocation with no intermediate strings:
    /// for the keys and URLs built on every request (`a + b + c` makes a string per `+`).
    package init(concatenating parts: Substring...) {
        var count = 0
        for part in parts { count += part.utf8.count }
        self.init(unsafeUninitializedCapacity: count) { buffer in
            var offset = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[offset...]))
                        .copyMemory(from: UnsafeRawBufferPointer(bytes))
                    offset += bytes.count
                }
            }
            return offset
        }
    }
}
