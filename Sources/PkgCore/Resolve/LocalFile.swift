import CSystemShims
import Synchronization
import Glibc

/// A local file (from a package or the overlay): an open descriptor,
/// closed when released, that a server can `sendfile(2)`; or, for small files
/// of a package version, its bytes held in memory (``isInMemory``). Read either
/// kind with ``read(into:at:)``.
public final class LocalFile: @unchecked Sendable {
    /// The open, read-only descriptor, valid until this object is released;
    /// -1 when the file is held in memory.
    public let descriptor: Int32
    /// The whole file when held in memory.
    private let contents: [UInt8]?
    /// Size in bytes at open.
    public let size: Int64
    /// A strong validator: `"SIZE-MTIME-INODE"` in hex. Package files are immutable
    /// once installed and overlay files are replaced by rename, so the triple
    /// changes whenever the content does.
    public let etag: String
    /// The modification time, in whole seconds since the epoch.
    public let modified: Int64
    /// ``modified`` as an HTTP date, for `Last-Modified`.
    public let lastModified: String
    /// The directory the file was opened under.
    public let directory: String
    /// The file's path relative to ``directory``.
    public let relativePath: String

    init(descriptor: Int32, info: stat, directory: String, relativePath: String) {
        self.descriptor = descriptor
        self.contents = nil
        self.size = Int64(info.st_size)
        let mtime = UInt64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_mtim.tv_nsec)
        self.etag = "\"" + String(UInt64(info.st_size), radix: 16) + "-" + String(mtime, radix: 16) + "-"
            + String(UInt64(info.st_ino), radix: 16) + "\""
        modified = Int64(info.st_mtim.tv_sec)
        lastModified = HTTPDate.format(modified)
        self.directory = directory
        self.relativePath = relativePath
    }

    private init(contents: [UInt8], of file: LocalFile) {
        descriptor = -1
        self.contents = contents
        size = file.size
        etag = file.etag
        modified = file.modified
        lastModified = file.lastModified
        directory = file.directory
        relativePath = file.relativePath
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the bytes are in memory (no descriptor to `sendfile`).
    public var isInMemory: Bool { contents != nil }

    /// Copies up to `buffer.count` bytes starting at `offset` into `buffer`.
    /// Returns the count, 0 at the end of the file, or -1 with `errno` set.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int {
        guard offset >= 0 else {
            errno = EINVAL
            return -1
        }
        guard buffer.count > 0 else { return 0 }
        guard let contents else {
            while true {
                let count = pread(descriptor, buffer.baseAddress, buffer.count, off_t(offset))
                if count >= 0 || errno != EINTR { return count }
            }
        }
        guard offset < Int64(contents.count) else { return 0 }
        let count = min(buffer.count, contents.count - Int(offset))
        contents.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + Int(offset), byteCount: count)
        }
        return count
    }

    /// A copy of this file held in memory, or nil when it cannot be read whole.
    func loadedIntoMemory() -> LocalFile? {
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]),
                                                            at: Int64(done)) }
            guard count > 0 else { return nil }
            done += count
        }
        return LocalFile(contents: bytes, of: self)
    }

    /// The absolute path the file was opened at (for display).
    public var path: String { directory + "/" + relativePath }

    /// Opens `relativePath` under the directory descriptor `directoryFD`, refusing
    /// symlinks and escapes; a directory yields its `index.html`. Returns nil when
    /// there is no such regular file.
    static func open(under directoryFD: Int32, directory: String, relativePath: String) -> LocalFile? {
        var fd = openBeneath(directoryFD, relativePath)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else { close(fd); return nil }
        var relative = relativePath
        if (info.st_mode & S_IFMT) == S_IFDIR {
            let index = openBeneath(fd, "index.html")
            close(fd)
            guard index >= 0 else { return nil }
            fd = index
            relative += "/index.html"
            guard fstat(fd, &info) == 0 else { close(fd); return nil }
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { close(fd); return nil }
        return LocalFile(descriptor: fd, info: info, directory: directory, relativePath: relative)
    }
}

private let openat2Unsupported = Atomic<Bool>(false)

/// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it;
/// else a walk of `openat(O_NOFOLLOW)` one component at a time. Either way a
/// symlink or `..` anywhere in `path` fails the open.
func openBeneath(_ directoryFD: Int32, _ path: String) -> Int32 {
    // O_NONBLOCK: opening a FIFO (a build folder may hold one) must not wait for a writer; it
    // is refused as no regular file after the open, and reads of regular files never block.
    let flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
    if !openat2Unsupported.load(ordering: .relaxed) {
        let fd = pkg_open_beneath(directoryFD, path, flags)
        if fd >= 0 { return fd }
        if errno != ENOSYS && errno != EPERM { return -1 }
        openat2Unsupported.store(true, ordering: .relaxed)
    }
    var current = directoryFD
    // Split at the byte "/": a Character split keeps "/" + a combining mark inside a component.
    let components = path.utf8.split(separator: UInt8(ascii: "/")).map { String(Substring($0)) }
    for (index, component) in components.enumerated() {
        if component == ".." || component == "." { if current != directoryFD { close(current) }; errno = EACCES; return -1 }
        let last = index == components.count - 1
        let next = openat(current, component, last ? flags : (O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW))
        if current != directoryFD { close(current) }
        guard next >= 0 else { return -1 }
        current = next
    }
    return current == directoryFD ? fcntl(directoryFD, F_DUPFD_CLOEXEC, 0) : current
}

