import Glibc
import CZip
import PkgCore

/// Builds bundles: deterministic zips of a directory tree.
///
/// ```swift
/// try BundlePacker.pack(directory: "site", to: "dist/site-1.0.0.zip")
/// ```
public enum BundlePacker {
    /// Writes a deterministic zip of every regular file under `directory`
    /// to `zipPath`, atomically (a temporary file in the same directory,
    /// synced, then renamed over `zipPath`).
    ///
    /// Entries are sorted by path, deflated, with mode 0644 and the time
    /// 1980-01-01 00:00 (or `SOURCE_DATE_EPOCH`, in UTC), so packing the same
    /// tree twice gives byte-identical zips. Directories are implied by the
    /// file paths; empty directories are not packed.
    ///
    /// Throws `.unsafeEntry` naming the path for a symlink or special file
    /// in the tree, or a name ``BundleExtractor/inspect()`` would refuse.
    public static func pack(directory: String, to zipPath: String) throws {
        try pack(try files(in: directory), to: zipPath)
    }

    /// Writes a deterministic zip of `files` (sorted by name here) to `zipPath`,
    /// atomically, as ``pack(directory:to:)`` does. Entries already compressed
    /// (`.gz`, `.br`) are stored rather than deflated again.
    public static func pack(_ files: [BundleFile], to zipPath: String) throws {
        let stamp = try DOSTimestamp.forPacking()
        let files = files.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        let temporary = zipPath + ".partial-\(getpid())"
        do {
            if files.isEmpty {
                try writeEmptyArchive(to: temporary)
            } else {
                try writeArchive(of: files, to: temporary, stamp: stamp)
            }
            try syncFile(temporary)
            guard rename(temporary, zipPath) == 0 else { throw fileSystemError("rename", zipPath) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncFile(parentDirectory(of: zipPath))
    }

    /// Every regular file under `directory`, sorted by name; refuses what
    /// ``pack(directory:to:)`` refuses.
    public static func files(in directory: String) throws -> [BundleFile] {
        var names: [String] = []
        try collectFiles(root: directory, relative: "", into: &names)
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .map { BundleFile(name: $0, path: directory + "/" + $0) }
    }

    /// Appends the relative path of every regular file under `root/relative`.
    private static func collectFiles(root: String, relative: String, into files: inout [String]) throws {
        let path = relative.isEmpty ? root : root + "/" + relative
        guard let stream = opendir(path) else { throw fileSystemError("open directory", path) }
        defer { closedir(stream) }
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw fileSystemError("read directory", path) }
                return
            }
            let name = try withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.prefix { $0 != 0 }
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    throw PkgError(.unsafeEntry, "pack \(root): a name in '\(path)' is not valid UTF-8")
                }
                return name
            }
            if name == "." || name == ".." { continue }
            let child = relative.isEmpty ? name : relative + "/" + name
            let childPath = root + "/" + child
            var info = stat()
            guard lstat(childPath, &info) == 0 else { throw fileSystemError("stat", childPath) }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                try collectFiles(root: root, relative: child, into: &files)
            case S_IFREG:
                if case .failure(let refusal) = EntryName.validate(child) {
                    throw PkgError(.unsafeEntry, "pack \(root): '\(child.escapedForMessage)': \(refusal.reason)")
                }
                files.append(child)
            case S_IFLNK:
                throw PkgError(.unsafeEntry,
                               "pack \(root): '\(child)' is a symbolic link; bundles hold only regular files")
            default:
                throw PkgError(.unsafeEntry,
                               "pack \(root): '\(child)' is a special file; bundles hold only regular files")
            }
        }
    }

    private static func writeArchive(of files: [BundleFile], to path: String, stamp: DOSTimestamp) throws {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            throw libzipError(&error, path)
        }
        var closed = false
        defer { if !closed { zip_discard(archive) } }

        let attributes = (UInt32(S_IFREG) | 0o644) << 16
        for file in files {
            guard let source = zip_source_file(archive, file.path, 0, -1) else {
                throw libzipError(zip_get_error(archive), file.path)
            }
            let added = zip_file_add(archive, file.name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
            guard added >= 0 else {
                zip_source_free(source)
                throw libzipError(zip_get_error(archive), file.path)
            }
            let index = zip_uint64_t(added)
            let method = ContentCoding(ofEncodedName: file.name) == nil ? ZIP_CM_DEFLATE : ZIP_CM_STORE
            guard zip_set_file_compression(archive, index, method, 0) == 0,
                  zip_file_set_dostime(archive, index, stamp.time, stamp.date, 0) == 0,
                  zip_file_set_external_attributes(archive, index, 0, UInt8(ZIP_OPSYS_UNIX), attributes) == 0
            else {
                throw libzipError(zip_get_error(archive), path)
            }
        }
        guard zip_close(archive) == 0 else { throw libzipError(zip_get_error(archive), path) }
        closed = true
    }

    /// An archive with no entries: libzip writes no file at all for one.
    private static func writeEmptyArchive(to path: String) throws {
        let endOfCentralDirectory: [UInt8] = [0x50, 0x4b, 0x05, 0x06] + Array(repeating: 0, count: 18)
        let fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fileSystemError("create", path) }
        defer { close(fd) }
        let written = endOfCentralDirectory.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == endOfCentralDirectory.count else { throw fileSystemError("write", path) }
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw fileSystemError("sync", path) }
    }

    private static func parentDirectory(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// A filesystem error when libzip failed on a system call, else `.fileSystem` with libzip's text.
    private static func libzipError(_ error: UnsafeMutablePointer<zip_error_t>, _ path: String) -> PkgError {
        if zip_error_system_type(error) == ZIP_ET_SYS, zip_error_code_system(error) != 0 {
            return fileSystemError("write zip", path, errno: zip_error_code_system(error))
        }
        return PkgError(.fileSystem, "write zip \(path): \(String(cString: zip_error_strerror(error)))")
    }
}
