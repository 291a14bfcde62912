import CCompression
import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Ways an origin can lie in a tree delta, each with the words its refusal uses.
enum HostileDelta: String, CaseIterable, CustomTestStringConvertible {
    case notTheListedBytes, badMagic, truncatedData, trailingBytes, wrongContent, pathLeavesTheTree,
         removesWhatTheBaseLacks, baseTheDeviceLacks, moreDataThanDeclared, hugeDeclaredFile, foreignTrees,
         windowAboveTheLimit

    var testDescription: String { rawValue }

    /// The words the one-line refusal contains.
    var reason: String {
        switch self {
        case .notTheListedBytes: "SHA-256"
        case .badMagic: "not a pkgctl tree delta"
        case .truncatedData: "ends in the middle of its data"
        case .trailingBytes: "bytes after the end"
        case .wrongContent: "the tree it builds is not the one it names"
        case .pathLeavesTheTree: "path leaves the bundle"
        case .removesWhatTheBaseLacks: "removed, but the base has no such file"
        case .baseTheDeviceLacks: "a base the installed version lacks"
        case .moreDataThanDeclared: "decodes to more than"
        case .hugeDeclaredFile: "more than the limit"
        case .foreignTrees: "not the ones the manifest names"
        case .windowAboveTheLimit: "Frame requires too much memory"
        }
    }

    /// A small zstd frame whose header asks the decoder for a window of 2^`log` bytes
    /// (streamed, so no content size lets the decoder shrink it).
    static func frameWithWindow(log: Int32) throws -> [UInt8] {
        let context = try #require(ZSTD_createCCtx())
        defer { ZSTD_freeCCtx(context) }
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, log)
        _ = ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 0)
        let input = [UInt8](repeating: 0x61, count: 1000)
        var output = [UInt8](repeating: 0, count: 4096)
        let written = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                var inBuffer = ZSTD_inBuffer(src: source.baseAddress, size: source.count, pos: 0)
                var outBuffer = ZSTD_outBuffer(dst: target.baseAddress, size: target.count, pos: 0)
                // Fed before it is told the input ends, so the encoder keeps the window it was given.
                _ = ZSTD_compressStream2(context, &outBuffer, &inBuffer, ZSTD_e_continue)
                var end = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
                let remaining = ZSTD_compressStream2(context, &outBuffer, &end, ZSTD_e_end)
                return remaining == 0 ? outBuffer.pos : 0
            }
        }
        try #require(written > 0)
        return Array(output[..<written])
    }

    func rewrite(_ bytes: [UInt8]) throws -> [UInt8] {
        var delta = try TreeDelta.parse(bytes, label: "test")
        switch self {
        case .notTheListedBytes:
            var changed = bytes
            changed[changed.count - 1] ^= 1
            return changed
        case .badMagic:
            return Array("PK\u{3}\u{4}".utf8) + bytes.dropFirst(4)
        case .truncatedData:
            return Array(bytes.dropLast(10))
        case .trailingBytes:
            return bytes + [0, 1, 2, 3]
        case .wrongContent:
            // Two new files' paths swapped: the data decodes, into the wrong files.
            let first = delta.header.files[0].path
            delta.header.files[0].path = delta.header.files[1].path
            delta.header.files[1].path = first
        case .pathLeavesTheTree:
            delta.header.files[0].path = "../../escaped"
        case .removesWhatTheBaseLacks:
            delta.header.removed.append("assets/none.js")
        case .baseTheDeviceLacks:
            delta.header.bases.append("assets/none.js")
        case .moreDataThanDeclared:
            delta.header.files[0].size -= 1
        case .hugeDeclaredFile:
            delta.header.files[0].size = 1 << 40
        case .foreignTrees:
            delta.header.target = String(repeating: "ab", count: 32)
        case .windowAboveTheLimit:
            delta.data = try Self.frameWithWindow(log: Zstd.maxWindowLog + 1)[...]
        }
        return try delta.encoded()
    }
}
