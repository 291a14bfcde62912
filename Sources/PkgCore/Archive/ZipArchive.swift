import Glibc
import CZip

/// A zip archive opened read-only with libzip, over a read-only mapping of its file.
///
/// Owns its `zip_t` and its mapping and releases both in `deinit`. libzip handles are not
/// thread-safe, so an instance belongs to one thread at a time and is deliberately not
/// `Sendable`: each extraction worker opens its own. libzip reads entries from memory: over
/// its stdio file source, each entry cost a seek and several small reads (13,500 of an
/// update's 29,500 system calls on a 1,500-file bundle). The archive must not shrink while
/// open (a read past its new end would be SIGBUS): it is the store's own staged download or
/// the zip `pack` just wrote.
package final class ZipArchive {
    /// The libzip handle; valid for the lifetime of this object.
    let handle: OpaquePointer
    /// Where the archive lives, for messages.
    let path: String
    /// Prefix for every error message, e.g. "demo 1.2.0".
    let label: String
    private let mapping: UnsafeMutableRawPointer?
    private let mappedSize: Int

    /// Opens `path` read-only. Throws `.corruptArchive` when it is not a
    /// readable zip, or a filesystem error when it cannot be opened.
    ///
    /// Opened without `ZIP_CHECKCONS`: that would refuse duplicate names
    /// before ``BundleExtractor/inspect()`` can name the entry, and a local
    /// header that disagrees with the central directory does not matter here,
    /// since extraction trusts only the validated central directory.
    package init(path: String, label: String) throws {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard fd >= 0 else { throw Self.labeled(fileSystemError("open", path), label) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Self.labeled(fileSystemError("stat", path), label) }
        // An empty file maps nothing; libzip reads a zero-length buffer as it read the empty file.
        let size = Int(info.st_size)
        var mapping: UnsafeMutableRawPointer?
        if size > 0 {
            let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
            guard let mapped, mapped != MAP_FAILED else { throw Self.labeled(fileSystemError("mmap", path), label) }
            mapping = mapped
        }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        let source = zip_source_buffer_create(mapping, zip_uint64_t(size), 0, &error)
        guard let source, let handle = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            if let source { zip_source_free(source) }
            if let mapping { munmap(mapping, size) }
            let reason = String(cString: zip_error_strerror(&error))
            throw PkgError(.corruptArchive, "\(label): \(path) is not a readable zip archive: \(reason)")
        }
        self.handle = handle
        self.path = path
        self.label = label
        self.mapping = mapping
        mappedSize = size
    }

    /// `cause` with its message after `label`, as the archive's other errors are.
    private static func labeled(_ cause: PkgError, _ label: String) -> PkgError {
        cause.with(message: "\(label): \(cause.message)")
    }

    deinit {
        // Read-only: nothing to write, so discarding is the whole close; then the bytes it read.
        zip_discard(handle)
        if let mapping { munmap(mapping, mappedSize) }
    }

    /// Number of entries in the central directory.
    var entryCount: UInt64 {
        let count = zip_get_num_entries(handle, 0)
        return count < 0 ? 0 : UInt64(count)
    }

    /// Each entry's compressed size in the archive, by name: what its deflated bytes
    /// weigh, close to what an origin serving it with gzip sends.
    package func compressedSizes() -> [String: UInt64] {
        var sizes: [String: UInt64] = [:]
        var stat = zip_stat_t()
        for index in 0..<entryCount {
            zip_stat_init(&stat)
            guard zip_stat_index(handle, index, 0, &stat) == 0, let name = stat.name,
                  stat.valid & UInt64(ZIP_STAT_COMP_SIZE) != 0 else { continue }
            sizes[String(cString: name)] = stat.comp_size
        }
        return sizes
    }

    /// libzip's description of its last error on this archive.
    var lastErrorDescription: String {
        String(cString: zip_error_strerror(zip_get_error(handle)))
    }
}
