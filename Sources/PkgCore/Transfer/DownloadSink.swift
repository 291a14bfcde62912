import PkgCrypto

import Glibc

/// The file a download streams into: it writes each chunk, counts the bytes and feeds a
/// running SHA-256 as they arrive, so the result is checked without reading it again.
final class DownloadSink {
    /// Bytes written so far, which is also where a resumed transfer continues.
    private(set) var received: UInt64 = 0

    private let path: String
    private let url: String
    private let expectedSize: UInt64
    private let progress: (@Sendable (UInt64, UInt64) -> Void)?
    private var hasher = SHA256()
    private var descriptor: Int32

    /// Creates or truncates the file at `path`; with `resuming`, keeps what an
    /// earlier attempt left there (up to `expectedSize` bytes), hashing it, so the
    /// transfer continues after it.
    init(path: String, url: String, expectedSize: UInt64, progress: (@Sendable (UInt64, UInt64) -> Void)?,
         resuming: Bool = false) throws {
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | (resuming ? 0 : O_TRUNC)
        let descriptor = retryingOnInterrupt { open(path, flags, 0o644) }
        guard descriptor >= 0 else { throw fileSystemError("open", path) }
        self.descriptor = descriptor
        self.path = path
        self.url = url
        self.expectedSize = expectedSize
        self.progress = progress
        if resuming { try takeExistingBytes() }
    }

    /// Hashes the bytes already in the file and moves to its end; a file longer
    /// than expected starts over.
    private func takeExistingBytes() throws {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in retryingOnInterrupt { read(descriptor, raw.baseAddress, raw.count) } }
            guard count >= 0 else { throw fileSystemError("read", path) }
            if count == 0 { break }
            received += UInt64(count)
            guard received <= expectedSize else {
                received = 1  // anything but 0, so restart() truncates
                try restart()
                return
            }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }

    /// Writes `bytes` at the end of the file. Throws `.sizeMismatch` without writing when
    /// they would take the file past the expected size, and the filesystem error (ENOSPC
    /// as `.insufficientSpace`) when the write fails.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        let count = UInt64(bytes.count)
        guard count <= expectedSize - received else {
            throw PkgError(
                .sizeMismatch,
                "GET \(url): size mismatch: received more than the expected \(expectedSize) bytes")
        }
        var offset = 0
        while offset < bytes.count {
            let written = retryingOnInterrupt {
                write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written > 0 else { throw fileSystemError("write", path, errno: written < 0 ? errno : EIO) }
            offset += written
        }
        hasher.update(bufferPointer: bytes)
        received += count
        progress?(received, expectedSize)
    }

    /// Empties the file and resets the count and hash, for an origin that answered a
    /// Range request with the whole body.
    func restart() throws {
        guard received > 0 else { return }
        guard retryingOnInterrupt({ ftruncate(descriptor, 0) }) == 0 else { throw fileSystemError("truncate", path) }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw fileSystemError("seek", path) }
        hasher = SHA256()
        received = 0
        progress?(0, expectedSize)
    }

    /// Closes the file and checks the size and SHA-256 of what was written.
    func finish(expectedSHA256: String) throws {
        let result = close(descriptor)
        descriptor = -1
        if result != 0 && errno != EINTR { throw fileSystemError("close", path) }
        guard received == expectedSize else {
            throw PkgError(
                .sizeMismatch, "GET \(url): size mismatch: expected \(expectedSize) bytes, received \(received)")
        }
        let actual = hasher.finalize().hexString
        let expected = expectedSHA256.lowercased()
        guard actual == expected else {
            throw PkgError(.checksumMismatch, "GET \(url): SHA-256 mismatch: expected \(expected), got \(actual)")
        }
    }
}
