import PkgCrypto
import Foundation

/// A large file of random bytes on the test origin, for pages that read a body slowly, and
/// the SHA-256 the page must report for it.
enum RandomOriginFile {
    /// Writes `megabytes` MiB to `name` in `root` (a random MiB, its first byte numbering each
    /// copy, so a repeated or lost MiB changes the digest); returns the digest in hex.
    static func write(megabytes: Int, to name: String, in root: TemporaryDirectory) throws -> String {
        var generator = SystemRandomNumberGenerator()
        let block = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = try root.write([], to: name)
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? handle.close() }
        var hash = SHA256()
        for index in 0..<megabytes {
            var chunk = block
            chunk[0] = UInt8(truncatingIfNeeded: index)
            hash.update(data: chunk)
            handle.write(Data(chunk))
        }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
