import Glibc
import CZip

/// A zip archive opened read-only with libzip.
///
/// Owns its `zip_t` and discards it in `deinit`. libzip handles are not
/// thread-safe, so an instance belongs to one thread at a time and is
/// deliberately not `Sendable`: each extraction worker opens its own.
final class ZipArchive {
    /// The libzip handle; valid for the lifetime of this object.
    let handle: OpaquePointer
    /// Where the archive lives, for messages.
    let path: String
    /// Prefix for every error message, e.g. "demo 1.2.0".
    let label: String

    /// Opens `path` read-only. Throws `.corruptArchive` when it is not a
    /// readable zip, or a filesystem error when it cannot be opened.
    ///
    /// Opened without `ZIP_CHECKCONS`: that would refuse duplicate names
    /// before ``BundleExtractor/inspect()`` can name the entry, and a local
    /// header that disagrees with the central directory does not matter here,
    /// since extraction trusts only the validated central directory.
    init(path: String, label: String) throws {
        var code: Int32 = 0
        guard let handle = zip_open(path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            let systemErrno = zip_error_system_type(&error) == ZIP_ET_SYS ? zip_error_code_system(&error) : 0
            if code == ZIP_ER_NOENT {
                throw PkgError(.fileSystem, "\(label): \(fileSystemError("open", path, errno: ENOENT).message)",
                               errno: ENOENT)
            }
            if code == ZIP_ER_OPEN || code == ZIP_ER_READ, systemErrno != 0 {
                let cause = fileSystemError("open", path, errno: systemErrno)
                throw PkgError(cause.code, "\(label): \(cause.message)", errno: systemErrno)
            }
            let reason = String(cString: zip_error_strerror(&error))
            throw PkgError(.corruptArchive, "\(label): \(path) is not a readable zip archive: \(reason)")
        }
        self.handle = handle
        self.path = path
        self.label = label
    }

    deinit {
        // Read-only: nothing to write, so discarding is the whole close.
        zip_discard(handle)
    }

    /// Number of entries in the central directory.
    var entryCount: UInt64 {
        let count = zip_get_num_entries(handle, 0)
        return count < 0 ? 0 : UInt64(count)
    }

    /// Each entry's compressed size in the archive, by name: what its deflated bytes
    /// weigh, close to what an origin serving it with gzip sends.
    func compressedSizes() -> [String: UInt64] {
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
