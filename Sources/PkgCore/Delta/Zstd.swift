import CCompression

/// libzstd's patch mode (`zstd --patch-from`): a frame compressed with a reference
/// prefix, the bytes the receiver already has, so what both share costs almost
/// nothing. Long-distance matching and a window covering prefix and payload let a
/// match reach anywhere in the prefix.
package enum Zstd {
    /// The largest window a frame may ask for when decoded: 2^27 bytes (128 MiB), so
    /// decoding holds at most the prefix plus this much.
    static let maxWindowLog: Int32 = 27

    /// Compresses `payload` at `level` (deterministic: one thread) against `prefix`; a
    /// `chainLog` replaces the level's (the match finder's table of 2^chainLog entries; the
    /// decoder never sees it). Refuses when prefix and payload together exceed the decoder's window.
    package static func compress(_ payload: [UInt8], prefix: [UInt8] = [], level: Int32 = 19,
                                 chainLog: Int32? = nil) throws -> [UInt8] {
        let span = prefix.count + payload.count
        guard span <= 1 << maxWindowLog else {
            throw PkgError(.invalidArgument, "zstd: \(span) bytes of prefix and payload exceed the window of 2^\(maxWindowLog)")
        }
        guard let context = ZSTD_createCCtx() else { throw PkgError(.invalidArgument, "zstd: out of memory") }
        defer { ZSTD_freeCCtx(context) }
        var windowLog: Int32 = 10
        while (1 << windowLog) < span, windowLog < maxWindowLog { windowLog += 1 }
        var parameters = [(ZSTD_c_compressionLevel, level), (ZSTD_c_windowLog, windowLog),
                          (ZSTD_c_enableLongDistanceMatching, 1), (ZSTD_c_checksumFlag, 1)]
        if let chainLog { parameters.append((ZSTD_c_chainLog, chainLog)) }
        for (parameter, value) in parameters {
            try check(ZSTD_CCtx_setParameter(context, parameter, value), "set parameter")
        }
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(payload.count))
        let written = try prefix.withUnsafeBytes { prefixBytes in
            try check(ZSTD_CCtx_refPrefix(context, prefixBytes.baseAddress, prefixBytes.count), "reference the prefix")
            return try payload.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { out in
                    try check(ZSTD_compress2(context, out.baseAddress, out.count, input.baseAddress, input.count), "compress")
                }
            }
        }
        output.removeSubrange(written...)
        return output
    }

    /// Decodes the one frame `frame` against `prefix`, handing the output to `sink` in
    /// pieces of at most 64 KiB. Refuses a frame that asks for a larger window than
    /// ``maxWindowLog``, decodes to more than `maxOutput` bytes, is corrupt or cut, or
    /// is followed by other bytes. Errors say `what`.
    static func decompress(_ frame: UnsafeRawBufferPointer, prefix: [UInt8] = [], maxOutput: UInt64, what: String,
                           sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let context = ZSTD_createDCtx() else { throw PkgError(.invalidArgument, "zstd: out of memory") }
        defer { ZSTD_freeDCtx(context) }
        func refuse(_ reason: String) -> PkgError { PkgError(.checksumMismatch, "\(what): \(reason)") }
        guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, maxWindowLog)) == 0 else {
            throw refuse("cannot bound the zstd window")
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var produced: UInt64 = 0
        try prefix.withUnsafeBytes { prefixBytes in
            if ZSTD_isError(ZSTD_DCtx_refPrefix(context, prefixBytes.baseAddress, prefixBytes.count)) != 0 {
                throw refuse("cannot reference the base")
            }
            var input = ZSTD_inBuffer(src: frame.baseAddress, size: frame.count, pos: 0)
            var finished = false
            while !finished {
                let (result, count) = chunk.withUnsafeMutableBytes { out -> (Int, Int) in
                    var output = ZSTD_outBuffer(dst: out.baseAddress, size: out.count, pos: 0)
                    let result = ZSTD_decompressStream(context, &output, &input)
                    return (result, output.pos)
                }
                if ZSTD_isError(result) != 0 {
                    throw refuse("corrupt delta (zstd: \(String(cString: ZSTD_getErrorName(result))))")
                }
                produced += UInt64(count)
                guard produced <= maxOutput else { throw refuse("decodes to more than the \(maxOutput) bytes it declares") }
                if count > 0 { try chunk.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[..<count])) } }
                if result == 0 {
                    finished = true
                } else if count == 0, input.pos == input.size {
                    throw refuse("the delta ends in the middle of its data")
                }
            }
            guard input.pos == input.size else { throw refuse("bytes after the end of the delta's data") }
        }
    }

    @discardableResult
    private static func check(_ result: Int, _ step: String) throws -> Int {
        guard ZSTD_isError(result) == 0 else {
            throw PkgError(.invalidArgument, "zstd: \(step): \(String(cString: ZSTD_getErrorName(result)))")
        }
        return result
    }
}
