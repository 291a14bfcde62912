import PkgCore

/// Writes the ``TreeDelta`` from one published tree to another: unchanged files
/// are left out, moved ones point at their base path, and the new contents are one
/// zstd frame compressed against their predecessors in the base (same path, else
/// the same name without its content hash, ``PredecessorName``), so bytes shared
/// across files and releases (a bundler's runtime, its imported-chunk hashes)
/// cost almost nothing. Deterministic: the same trees give the same bytes.
package struct TreeDeltaWriter {
    /// zstd level of the data frame: `zstd -19 --long --patch-from`.
    static let level: Int32 = 19
    /// How far back level 19's match finder reaches: its binary tree holds the last 2^23
    /// positions (zstd's chainLog 24 for large inputs, a 64 MiB table).
    static let treeReach: UInt64 = 1 << 23
    /// zstd's chainLog for a frame whose prefix and payload span more than ``treeReach``.
    /// Changed files and their predecessors then mostly lie farther apart than the tree
    /// reaches, so long-distance matching finds what the two share and the tree only finds
    /// nearby matches, which one of 2^20 positions finds nearly as well with far fewer cache
    /// misses: Streamlit's delta +0.7 % bytes, Gradio's +2.7 %, each frame in under 60 % of
    /// the time (BENCHMARKS.md, "The tree delta's match finder"). Smaller spans keep the
    /// level's tree, which reaches the predecessors there.
    static let farSpanChainLog: Int32 = 21

    /// A writer.
    package init() {}

    /// zstd's chainLog for a frame of prefix and payload spanning `span` bytes; nil: the level's own.
    static func chainLog(forSpan span: UInt64) -> Int32? {
        span > treeReach ? farSpanChainLog : nil
    }

    /// The delta from `base` to `target`, reading contents by SHA-256 with `contents`;
    /// nil when the new contents alone exceed what a device decodes in one frame.
    package func delta(from base: PublishedFileIndex, to target: PublishedFileIndex,
               contents: (String) throws -> [UInt8]) throws -> [UInt8]? {
        var basePaths: [String: PublishedFileIndex.File] = [:]
        var baseContents: [String: String] = [:]
        var basesByName: [String: [PublishedFileIndex.File]] = [:]
        for file in base.files {
            basePaths[file.path] = file
            if baseContents[file.sha256] == nil { baseContents[file.sha256] = file.path }
            basesByName[PredecessorName.key(of: file.path), default: []].append(file)
        }
        let targetPaths = Set(target.files.map(\.path))
        var changes: [TreeDelta.Change] = []
        var newContents: [PublishedFileIndex.File] = []
        var predecessors: [PublishedFileIndex.File] = []
        var chosen = Set<String>()
        for file in target.files where basePaths[file.path]?.sha256 != file.sha256 {
            if let moved = baseContents[file.sha256] {
                changes.append(.init(path: file.path, size: file.size, mode: file.mode, from: moved))
                continue
            }
            changes.append(.init(path: file.path, size: file.size, mode: file.mode, from: nil))
            newContents.append(file)
            let predecessor = basePaths[file.path] ?? basesByName[PredecessorName.key(of: file.path)]?
                .min { distance($0.size, file.size) < distance($1.size, file.size) }
            if let predecessor, chosen.insert(predecessor.sha256).inserted { predecessors.append(predecessor) }
        }
        let payloadSize = newContents.reduce(0) { $0 + $1.size }
        guard payloadSize <= TreeDelta.maxBaseBytes else { return nil }
        // The prefix and the new contents share one window: predecessors that do not fit are left out.
        var prefixSize: UInt64 = 0
        var bases: [PublishedFileIndex.File] = []
        for predecessor in predecessors where prefixSize + predecessor.size + payloadSize <= TreeDelta.maxBaseBytes {
            bases.append(predecessor)
            prefixSize += predecessor.size
        }
        var prefix: [UInt8] = []
        prefix.reserveCapacity(Int(prefixSize))
        for file in bases { prefix += try contents(file.sha256) }
        var payload: [UInt8] = []
        payload.reserveCapacity(Int(payloadSize))
        for file in newContents { payload += try contents(file.sha256) }

        let header = TreeDelta.Header(base: TreeDigest.of(base), target: TreeDigest.of(target),
                                      bases: bases.map(\.path),
                                      removed: base.files.map(\.path).filter { !targetPaths.contains($0) },
                                      files: changes)
        let data = try Zstd.compress(payload, prefix: prefix, level: Self.level,
                                     chainLog: Self.chainLog(forSpan: prefixSize + payloadSize))
        return try TreeDelta(header: header, data: data[...]).encoded()
    }

    private func distance(_ a: UInt64, _ b: UInt64) -> UInt64 { a > b ? a - b : b - a }
}
