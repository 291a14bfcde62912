import PkgCrypto
import Glibc

/// SHA-256 of files, streamed through a fixed buffer.
package enum FileHasher {
    package static func hash(file path: String) throws -> FileIndex.Entry {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        defer { close(fd) }
        var hasher = SHA256()
        var size: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw fileSystemError("read", path)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += UInt64(count)
        }
        return FileIndex.Entry(size: size, sha256: hasher.finalize().hexString)
    }
}
