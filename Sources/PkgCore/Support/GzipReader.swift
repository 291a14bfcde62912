import CCompression

/// Reads gzip a piece at a time, over any number of concatenated members (CloudFront
/// writes its log files so), in memory bounded by one output buffer and zlib's 32 KiB
/// window, however large the stream.
///
/// ```swift
/// let reader = try GzipReader(what: "access.log.gz")
/// for piece in compressedPieces { try reader.feed(piece) { text in use(text) } }
/// try reader.finish()
/// ```
package final class GzipReader {
    /// Whether `bytes` start with gzip's magic number (1f 8b).
    package static func isGzip(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
    }

    private let state: OpaquePointer
    private let what: String
    private let output: UnsafeMutableBufferPointer<UInt8>
    /// Bytes of a member were read and its end was not.
    private var insideMember = false

    /// A reader whose errors name `what` (the file), handing out at most `outputSize` bytes at a time.
    package init(what: String, outputSize: Int = 1 << 20) throws {
        guard let state = pkg_gunzip_new() else { throw PkgError(.fileSystem, "\(what): out of memory for gzip") }
        self.state = state
        self.what = what
        output = .allocate(capacity: outputSize)
    }

    deinit {
        pkg_gunzip_free(state)
        output.deallocate()
    }

    /// Inflates `input`, handing each piece of output to `sink` (valid only during the call).
    /// Throws on bytes that are not gzip or are corrupt.
    package func feed(_ input: UnsafeBufferPointer<UInt8>,
                      _ sink: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        var offset = 0
        var filled = false
        while offset < input.count || filled {
            var consumed = 0, produced = 0
            var message: UnsafePointer<CChar>?
            let status = pkg_gunzip_inflate(state, input.baseAddress.map { $0 + offset }, input.count - offset, &consumed,
                                            output.baseAddress, output.count, &produced, &message)
            guard status >= 0 else {
                throw PkgError(.corruptArchive, "\(what): corrupt gzip data (\(message.map { String(cString: $0) } ?? "?"))")
            }
            offset += consumed
            if consumed > 0 { insideMember = true }
            if status == 1 { insideMember = false }
            filled = produced == output.count
            if produced > 0 { try sink(UnsafeBufferPointer(rebasing: output[0..<produced])) }
            if consumed == 0, produced == 0, status == 0 { break }  // nothing more without more input
        }
    }

    /// Says the input ended: throws when it ended inside a member (a cut file).
    package func finish() throws {
        if insideMember { throw PkgError(.corruptArchive, "\(what): gzip data cut short") }
    }
}
