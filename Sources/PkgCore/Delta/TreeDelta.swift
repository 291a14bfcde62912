import FoundationEssentials

/// The file a device fetches to go from one published tree to the next in one
/// request, as OSTree's static deltas do, written by ``TreeDeltaWriter`` and applied
/// by ``TreeDeltaInstall``:
///
/// ```
/// "pkgdelta1\n"                 magic and format version
/// UInt32 little-endian          length of the header frame
/// header frame                  zstd: the JSON ``Header``
/// data frame                    zstd against a prefix: the base files `bases` lists,
///                               concatenated; decodes to the new contents of `files`
///                               without `from`, concatenated in their order
/// ```
///
/// Files of the base not named in `removed` or `files` are unchanged: the device
/// links them from its installed version. Nothing in the delta is trusted: every
/// path passes the index rules, sizes are bounded, and the tree built must have the
/// ``TreeDigest`` `target`, which the manifest names too.
package struct TreeDelta {
    package static let magic = Array("pkgdelta1\n".utf8)
    /// Most bytes the header may decode to.
    static let maxHeaderSize: UInt64 = 32 << 20
    /// Most bytes of base files the data frame may reference: they are held in memory
    /// while it decodes, with at most a window of 2^``Zstd/maxWindowLog``.
    package static let maxBaseBytes: UInt64 = 1 << Zstd.maxWindowLog

    /// What changed from the base tree to the target tree.
    package struct Header: Codable, Hashable {
        /// ``TreeDigest`` of the tree the delta starts from.
        package var base: String
        /// ``TreeDigest`` of the tree it builds.
        package var target: String
        /// Base paths whose contents, concatenated in this order, are the data frame's prefix.
        package var bases: [String]
        /// Base paths the target does not have.
        package var removed: [String]
        /// Target files that are new or whose content changed.
        package var files: [Change]

        /// A value of these fields, as the publisher writes it.
        package init(base: String, target: String, bases: [String], removed: [String], files: [Change]) {
            self.base = base
            self.target = target
            self.bases = bases
            self.removed = removed
            self.files = files
        }
    }

    /// One new or changed file of the target.
    package struct Change: Codable, Hashable {
        package var path: String
        package var size: UInt64
        package var mode: UInt32
        /// A base path with exactly this content (a moved or copied file); nil: its
        /// bytes are next in the data frame.
        package var from: String?

        /// A value of these fields, as the publisher writes it.
        package init(path: String, size: UInt64, mode: UInt32, from: String? = nil) {
            self.path = path
            self.size = size
            self.mode = mode
            self.from = from
        }
    }

    package var header: Header
    /// The data frame, compressed.
    package var data: ArraySlice<UInt8>

    /// A delta of `header` and the compressed data frame `data`.
    package init(header: Header, data: ArraySlice<UInt8>) {
        self.header = header
        self.data = data
    }

    /// The file's bytes.
    package func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let headerFrame = try Zstd.compress(Array(try encoder.encode(header)))
        let length = UInt32(headerFrame.count)
        return Self.magic + (0..<4).map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) } + headerFrame + Array(data)
    }

    /// Splits and decodes a delta file; errors name `label`.
    package static func parse(_ bytes: [UInt8], label: String) throws -> TreeDelta {
        func refuse(_ reason: String) -> PkgError { PkgError(.checksumMismatch, "\(label): delta: \(reason)") }
        guard bytes.count >= magic.count + 4, Array(bytes[..<magic.count]) == magic else {
            throw refuse("not a pkgctl tree delta (bad magic)")
        }
        let length = (0..<4).reduce(0) { $0 | Int(bytes[magic.count + $1]) << ($1 * 8) }
        let start = magic.count + 4
        guard length <= bytes.count - start else { throw refuse("the header runs past the end of the file") }
        var json: [UInt8] = []
        try bytes[start..<(start + length)].withUnsafeBytes { frame in
            try Zstd.decompress(frame, maxOutput: maxHeaderSize, what: "\(label): delta header") { json += $0 }
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(json))
        } catch let error as DecodingError {
            throw refuse("header: \(error.oneLineDescription)")
        }
        return TreeDelta(header: header, data: bytes[(start + length)...])
    }
}
