extension Array where Element == UInt8 {
    /// `count` bytes, byte `i` being `byte(i)`, written through a buffer. `(0..<n).map` runs
    /// unspecialized in the unoptimized test bundle: about 1 µs a byte, 3 µs under
    /// ThreadSanitizer, which made test data of a few MiB cost minutes of CI.
    static func filled(count: Int, _ byte: (Int) -> UInt8) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            for index in 0..<count { buffer[index] = byte(index) }
        }
        return bytes
    }
}
