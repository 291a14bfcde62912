import PkgCrypto
import FoundationEssentials
import Glibc

/// One ``TreeDelta`` checked against the installed version it starts from, then
/// applied into a staging directory. Everything the delta says is checked before a
/// byte is written: the paths it removes, copies and references exist in the base;
/// the tree it describes passes the published-index rules and limits; the base files
/// it decodes against fit ``TreeDelta/maxBaseBytes``. Memory while applying: the
/// delta file, those base files and the decoder's window (at most 2^``Zstd/maxWindowLog``).
package struct TreeDeltaApplication {
    let delta: TreeDelta
    let base: VersionRecord
    let baseDirectory: String
    let label: String
    /// Bytes of new content the data frame decodes to.
    let dataSize: UInt64

    /// Checks `delta` against `base`, the record of the version installed in `baseDirectory`.
    package init(delta: TreeDelta, base: VersionRecord, baseDirectory: String, limits: ExtractionLimits,
                 label: String) throws {
        self.delta = delta
        self.base = base
        self.label = label
        self.baseDirectory = baseDirectory
        let header = delta.header
        func refuse(_ path: String, _ reason: String) -> PkgError {
            PkgError(.checksumMismatch, "\(label): delta: '\(path.escapedForMessage)': \(reason)")
        }
        // Swift compares strings by canonical equivalence: a path spelt otherwise (NFD for NFC)
        // would find a base file the kernel never would. Every path must be the base's byte for byte.
        for path in header.removed + header.bases + header.files.flatMap({ [$0.path] + ($0.from.map { [$0] } ?? []) }) {
            if let stored = base.index.files.index(forKey: path),
               !base.index.files.keys[stored].utf8.elementsEqual(path.utf8) {
                throw refuse(path, "names a file of the base in another spelling")
            }
        }
        var files = base.index.files
        for path in header.removed where files.removeValue(forKey: path) == nil {
            throw refuse(path, "removed, but the base has no such file")
        }
        var changed = Set<String>()
        var dataSize: UInt64 = 0
        for change in header.files {
            guard changed.insert(change.path).inserted else { throw refuse(change.path, "listed twice") }
            if let from = change.from {
                guard base.index.files[from]?.size == change.size else {
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
            guard let file = base.index.files[path] else { throw refuse(path, "a base the installed version lacks") }
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

    /// Builds the target tree in `staging` and returns its index; throws unless it
    /// is exactly the tree the delta names.
    package func apply(into staging: String) throws -> FileIndex {
        let header = delta.header
        var result = base.index.files
        for path in header.removed { result[path] = nil }
        var prefix: [UInt8] = []
        for path in header.bases {
            let file = baseDirectory + "/" + path
            guard let bytes = try FileSystem.read(file) else { throw fileSystemError("read", file) }
            guard SHA256.hash(data: bytes).hexString == base.index.files[path]?.sha256 else {
                throw PkgError(.checksumMismatch, "\(label): installed file \(file) differs from its record; "
                               + "not used as a delta base")
            }
            prefix += bytes
        }
        let contents = header.files.filter { $0.from == nil }
        var writer = ContentWriter(files: contents, staging: staging)
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
        let written = try writer.finish(label: label)
        for change in header.files {
            if let from = change.from {
                try Self.link(baseDirectory + "/" + from, to: staging + "/" + change.path)
                result[change.path] = base.index.files[from]
            } else {
                result[change.path] = written[change.path]
            }
        }
        let changed = Set(header.files.map(\.path)), removed = Set(header.removed)
        for path in base.index.files.keys where !changed.contains(path) && !removed.contains(path) {
            try Self.link(baseDirectory + "/" + path, to: staging + "/" + path)
        }
        let index = FileIndex(files: result)
        guard TreeDigest.of(index) == header.target else {
            throw PkgError(.checksumMismatch, "\(label): delta: the tree it builds is not the one it names; nothing installed")
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

    /// Cuts the decoded data into the files it is made of, hashing each as it is written.
    private struct ContentWriter {
        let files: [TreeDelta.Change]
        let staging: String
        private var next = 0
        private var descriptor: Int32 = -1
        private var remaining: UInt64 = 0
        private var hasher = SHA256()
        private(set) var written: [String: FileIndex.Entry] = [:]

        init(files: [TreeDelta.Change], staging: String) {
            self.files = files
            self.staging = staging
        }

        mutating func write(_ chunk: UnsafeRawBufferPointer) throws {
            var offset = 0
            while offset < chunk.count {
                if descriptor < 0 { try open() }
                guard descriptor >= 0 else { throw fileSystemError("write past the last file in", staging) }
                let count = Int(min(remaining, UInt64(chunk.count - offset)))
                let piece = UnsafeRawBufferPointer(rebasing: chunk[offset..<(offset + count)])
                hasher.update(bufferPointer: piece)
                var done = 0
                while done < count {
                    let result = Glibc.write(descriptor, piece.baseAddress! + done, count - done)
                    if result < 0, errno == EINTR { continue }
                    guard result > 0 else { throw fileSystemError("write", staging + "/" + files[next].path) }
                    done += result
                }
                offset += count
                remaining -= UInt64(count)
                if remaining == 0 { try close() }
            }
        }

        /// Creates the empty files left and returns every file's entry; throws when the
        /// data ended before the files it had to fill.
        mutating func finish(label: String) throws -> [String: FileIndex.Entry] {
            if descriptor < 0, next < files.count, files[next].size == 0 { try open() }
            guard descriptor < 0, next == files.count else {
                if descriptor >= 0 { Glibc.close(descriptor) }
                throw PkgError(.checksumMismatch, "\(label): delta: its data ends before the files it declares")
            }
            return written
        }

        /// Closes the file being written, if any (the staging directory goes with it).
        mutating func abandon() {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }

        /// Opens the next file; empty files on the way are created and closed at once.
        private mutating func open() throws {
            while true {
                guard next < files.count else { return }
                let path = staging + "/" + files[next].path
                try FileSystem.makeDirectories(PathName.parent(path))
                descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
                guard descriptor >= 0 else { throw fileSystemError("create", path) }
                remaining = files[next].size
                hasher = SHA256()
                if remaining > 0 { return }
                try close()
            }
        }

        private mutating func close() throws {
            let path = staging + "/" + files[next].path
            guard Glibc.close(descriptor) == 0 else { throw fileSystemError("close", path) }
            descriptor = -1
            written[files[next].path] = FileIndex.Entry(size: files[next].size, sha256: hasher.finalize().hexString)
            next += 1
        }
    }
}
