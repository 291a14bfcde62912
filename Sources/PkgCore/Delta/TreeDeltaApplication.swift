import PkgCrypto
import FoundationEssentials
import Glibc

/// One ``TreeDelta`` checked against the tree it starts from, then applied: by a
/// device into a staging directory (``apply(from:into:)``), by the publisher in
/// memory to prove the delta rebuilds its release (``builtTree(readingBase:)``).
/// Everything the delta says is checked before a byte is written: the paths it
/// removes, copies and references exist in the base; the tree it describes passes
/// the published-index rules and limits; the base files it decodes against fit
/// ``TreeDelta/maxBaseBytes``. Memory while applying: the delta file, those base
/// files and the decoder's window (at most 2^``Zstd/maxWindowLog``).
package struct TreeDeltaApplication {
    let delta: TreeDelta
    /// The index of the tree the delta starts from.
    let base: FileIndex
    let label: String
    /// Bytes of new content the data frame decodes to.
    let dataSize: UInt64

    /// Checks `delta` against `base`, the index of the tree it starts from.
    package init(delta: TreeDelta, base: FileIndex, limits: ExtractionLimits, label: String) throws {
        self.delta = delta
        self.base = base
        self.label = label
        let header = delta.header
        func refuse(_ path: String, _ reason: String) -> PkgError {
            PkgError(.checksumMismatch, "\(label): delta: '\(path.escapedForMessage)': \(reason)")
        }
        // Swift compares strings by canonical equivalence: a path spelt otherwise (NFD for NFC)
        // would find a base file the kernel never would. Every path must be the base's byte for byte.
        for path in header.removed + header.bases + header.files.flatMap({ [$0.path] + ($0.from.map { [$0] } ?? []) }) {
            if let stored = base.files.index(forKey: path),
               !base.files.keys[stored].utf8.elementsEqual(path.utf8) {
                throw refuse(path, "names a file of the base in another spelling")
            }
        }
        var files = base.files
        for path in header.removed where files.removeValue(forKey: path) == nil {
            throw refuse(path, "removed, but the base has no such file")
        }
        var changed = Set<String>()
        var dataSize: UInt64 = 0
        for change in header.files {
            guard changed.insert(change.path).inserted else { throw refuse(change.path, "listed twice") }
            if let from = change.from {
                guard base.files[from]?.size == change.size else {
                    throw refuse(from, "copied, but the base has no such file of \(change.size) bytes")
                }
            } else {
                let (sum, overflow) = dataSize.addingReportingOverflow(change.size)
                guard !overflow else { throw refuse(change.path, "sizes overflow") }
                dataSize = sum
            }
            files[change.path] = FileIndex.Entry(size: change.size, sha256: String(repeating: "0", count: 64))
        }
        var baseBytes: UInt64 = 0
        var baseSeen = Set<String>()
        for path in header.bases {
            guard let file = base.files[path] else { throw refuse(path, "a base the installed version lacks") }
            guard baseSeen.insert(path).inserted else { throw refuse(path, "a base listed twice") }
            baseBytes += file.size  // each at most the store's size limit, at most once: no overflow
        }
        guard baseBytes <= TreeDelta.maxBaseBytes else {
            throw PkgError(.checksumMismatch, "\(label): delta: its base files weigh \(baseBytes) bytes, more than the "
                           + "limit of \(TreeDelta.maxBaseBytes)")
        }
        let tree = PublishedFileIndex(files: files.map { .init(path: $0.key, sha256: $0.value.sha256, size: $0.value.size,
                                                                mode: 0o644) })
        try PublishedFileIndex.check(tree, label: label, limits: limits)
        self.dataSize = dataSize
    }

    /// Builds the target tree in `staging` from the installed version in `baseDirectory`
    /// and returns its index; throws unless it is exactly the tree the delta names.
    package func apply(from baseDirectory: String, into staging: String) throws -> FileIndex {
        let header = delta.header
        var writer = TreeDeltaContentWriter(files: header.files.filter { $0.from == nil }, staging: staging)
        let written = try decode(into: &writer) { path in
            let file = baseDirectory + "/" + path
            guard let bytes = try FileSystem.read(file) else { throw fileSystemError("read", file) }
            guard SHA256.hash(data: bytes).hexString == base.files[path]?.sha256 else {
                throw PkgError(.checksumMismatch, "\(label): installed file \(file) differs from its record; "
                               + "not used as a delta base")
            }
            return bytes
        }
        for change in header.files {
            if let from = change.from { try Self.link(baseDirectory + "/" + from, to: staging + "/" + change.path) }
        }
        let changed = Set(header.files.map(\.path)), removed = Set(header.removed)
        for path in base.files.keys where !changed.contains(path) && !removed.contains(path) {
            try Self.link(baseDirectory + "/" + path, to: staging + "/" + path)
        }
        return try tree(with: written, refusal: "; nothing installed")
    }

    /// The index of the tree the delta builds, decoded in memory with no file written;
    /// `readingBase` gives the bytes of a base file from its entry. Throws unless it is
    /// exactly the tree the delta names.
    package func builtTree(readingBase: (FileIndex.Entry) throws -> [UInt8]) throws -> FileIndex {
        var writer = TreeDeltaContentWriter(files: delta.header.files.filter { $0.from == nil }, staging: nil)
        let written = try decode(into: &writer) { path in try readingBase(base.files[path]!) }
        return try tree(with: written, refusal: "")
    }

    /// Decodes the data frame against the base files the header lists (read by
    /// `readingBase` from their paths) through `writer`; returns the new files' entries.
    private func decode(into writer: inout TreeDeltaContentWriter,
                        readingBase: (String) throws -> [UInt8]) throws -> [String: FileIndex.Entry] {
        var prefix: [UInt8] = []
        for path in delta.header.bases { prefix += try readingBase(path) }
        do {
            try delta.data.withUnsafeBytes { frame in
                try Zstd.decompress(frame, prefix: prefix, maxOutput: dataSize, what: "\(label): delta data") { chunk in
                    try writer.write(chunk)
                }
            }
        } catch {
            writer.abandon()
            throw error
        }
        return try writer.finish(label: label)
    }

    /// The base with the header's removals and changes, the new files' entries `written`;
    /// throws unless its ``TreeDigest`` is the target the header names (the error ends with `refusal`).
    private func tree(with written: [String: FileIndex.Entry], refusal: String) throws -> FileIndex {
        let header = delta.header
        var result = base.files
        for path in header.removed { result[path] = nil }
        for change in header.files {
            if let from = change.from { result[change.path] = base.files[from] } else { result[change.path] = written[change.path] }
        }
        let index = FileIndex(files: result)
        guard TreeDigest.of(index) == header.target else {
            throw PkgError(.checksumMismatch, "\(label): delta: the tree it builds is not the one it names" + refusal)
        }
        return index
    }

    /// Hard-links an installed file into the staging tree (installed versions never
    /// change), copying where the inode has reached the filesystem's link limit.
    private static func link(_ source: String, to target: String) throws {
        try FileSystem.makeDirectories(PathName.parent(target))
        guard Glibc.link(source, target) != 0 else { return }
        guard errno == EMLINK, let bytes = try FileSystem.read(source) else { throw fileSystemError("link \(source) to", target) }
        try FileSystem.createExclusively(bytes, at: target, mode: 0o644)
    }

}
