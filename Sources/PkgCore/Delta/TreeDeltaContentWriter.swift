import PkgCrypto
import Glibc

/// Cuts the decoded data frame of a ``TreeDelta`` into the new files it is made of,
/// hashing each as it goes, and writes them under `staging` when there is one (a
/// device applying the delta); with none, it only hashes (the publisher checking it).
struct TreeDeltaContentWriter {
    let files: [TreeDelta.Change]
    let staging: String?
    private var next = 0
    /// Whether `files[next]` is being filled.
    private var isOpen = false
    private var descriptor: Int32 = -1
    private var remaining: UInt64 = 0
    private var hasher = SHA256()
    private var written: [String: FileIndex.Entry] = [:]

    init(files: [TreeDelta.Change], staging: String?) {
        self.files = files
        self.staging = staging
    }

    mutating func write(_ chunk: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < chunk.count {
            if !isOpen { try open() }
            guard isOpen else { throw fileSystemError("write past the last file in", staging ?? "a tree delta") }
            let count = Int(min(remaining, UInt64(chunk.count - offset)))
            let piece = UnsafeRawBufferPointer(rebasing: chunk[offset..<(offset + count)])
            hasher.update(bufferPointer: piece)
            if descriptor >= 0 { try writeAll(piece) }
            offset += count
            remaining -= UInt64(count)
            if remaining == 0 { try close() }
        }
    }

    /// Creates the empty files left and returns every file's entry; throws when the
    /// data ended before the files it had to fill.
    mutating func finish(label: String) throws -> [String: FileIndex.Entry] {
        if !isOpen, next < files.count, files[next].size == 0 { try open() }
        guard !isOpen, next == files.count else {
            abandon()
            throw PkgError(.checksumMismatch, "\(label): delta: its data ends before the files it declares")
        }
        return written
    }

    /// Closes the file being written, if any (the staging directory goes with it).
    mutating func abandon() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
        isOpen = false
    }

    private func writeAll(_ piece: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < piece.count {
            let result = Glibc.write(descriptor, piece.baseAddress! + done, piece.count - done)
            if result < 0, errno == EINTR { continue }
            guard result > 0 else { throw fileSystemError("write", (staging ?? "") + "/" + files[next].path) }
            done += result
        }
    }

    /// Opens the next file; empty files on the way are created and closed at once.
    private mutating func open() throws {
        while next < files.count {
            if let staging {
                let path = staging + "/" + files[next].path
                try FileSystem.makeDirectories(PathName.parent(path))
                descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
                guard descriptor >= 0 else { throw fileSystemError("create", path) }
            }
            isOpen = true
            remaining = files[next].size
            hasher = SHA256()
            if remaining > 0 { return }
            try close()
        }
    }

    private mutating func close() throws {
        if descriptor >= 0 {
            let path = (staging ?? "") + "/" + files[next].path
            guard Glibc.close(descriptor) == 0 else { descriptor = -1; throw fileSystemError("close", path) }
            descriptor = -1
        }
        isOpen = false
        written[files[next].path] = FileIndex.Entry(size: files[next].size, sha256: hasher.finalize().hexString)
        next += 1
    }
}
