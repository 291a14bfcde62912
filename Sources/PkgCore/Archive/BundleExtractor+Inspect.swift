import Glibc
import CZip

extension BundleExtractor {
    /// Reads the central directory and refuses the bundle, writing nothing,
    /// when any entry is unsafe or the bundle exceeds its limits.
    ///
    /// Refused with `.unsafeEntry`: an absolute name, a `..`, `.` or empty
    /// component, a backslash, a drive letter, a control character; a
    /// symlink or other non-regular, non-directory entry; a duplicate name
    /// (including a file that is also a directory, such as "a" and "a/b");
    /// an encrypted entry. With `.archiveLimit`: more than
    /// `limits.maxEntries` entries, declared sizes summing past
    /// `limits.maxTotalUncompressedSize`, or an entry of `limits.ratioCheckMinimumSize`
    /// bytes or more compressed
    /// beyond `limits.maxCompressionRatio`. With `.corruptArchive`: a file
    /// that is not a zip, or an entry whose compression method libzip cannot
    /// decompress.
    ///
    /// - Returns: the validated listing to pass to ``extract(_:into:workers:)``.
    public func inspect() throws -> BundleContents {
        let archive = try ZipArchive(path: archivePath, label: label)
        let count = archive.entryCount
        if count > UInt64(max(limits.maxEntries, 0)) {
            throw PkgError(.archiveLimit,
                           "\(label): bundle has \(count) entries, more than the limit of \(limits.maxEntries)")
        }

        var entries: [(name: String, entry: EntryName)] = []
        entries.reserveCapacity(Int(count))
        var files: [BundleContents.File] = []
        files.reserveCapacity(Int(count))
        var namesByPath: [String: (name: String, isDirectory: Bool)] = [:]
        namesByPath.reserveCapacity(Int(count))
        var total: UInt64 = 0

        var stat = zip_stat_t()
        for index in 0..<count {
            zip_stat_init(&stat)
            guard zip_stat_index(archive.handle, index, 0, &stat) == 0 else {
                throw PkgError(.corruptArchive,
                               "\(label): entry #\(index): cannot be read: \(archive.lastErrorDescription)")
            }
            // libzip turns names that are not UTF-8 into UTF-8 from CP437, which
            // maps control bytes to symbols: look for those in the raw bytes.
            if let raw = zip_get_name(archive.handle, index, zip_flags_t(ZIP_FL_ENC_RAW)),
               let byte = Self.controlByte(in: raw) {
                let shown = String(decoding: UnsafeRawBufferPointer(start: raw, count: strlen(raw)), as: UTF8.self)
                throw entryError(.unsafeEntry, shown, "control character in name (byte \(byte))")
            }
            let name = stat.name.map { String(cString: $0) } ?? ""
            let entry: EntryName
            switch EntryName.validate(name) {
            case .success(let valid): entry = valid
            case .failure(let refusal): throw entryError(.unsafeEntry, name, refusal.reason)
            }
            try checkType(of: archive, index: index, name: name)
            if stat.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0, stat.encryption_method != UInt16(ZIP_EM_NONE) {
                throw entryError(.unsafeEntry, name, "encrypted")
            }
            if let previous = namesByPath[entry.path] {
                let reason = previous.isDirectory == entry.isDirectory
                    ? "duplicate name" : "is both a file and a directory"
                throw entryError(.unsafeEntry, name, reason)
            }
            namesByPath[entry.path] = (name, entry.isDirectory)
            entries.append((name, entry))
            if entry.isDirectory { continue }

            guard stat.valid & UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD)
                    == UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD) else {
                throw entryError(.corruptArchive, name, "sizes or compression method missing")
            }
            if zip_compression_method_supported(Int32(stat.comp_method), 0) == 0 {
                throw entryError(.corruptArchive, name, "unsupported compression method \(stat.comp_method)")
            }
            let (sum, overflow) = total.addingReportingOverflow(stat.size)
            if overflow || sum > limits.maxTotalUncompressedSize {
                throw entryError(.archiveLimit, name,
                                 "bundle expands to more than the limit of \(limits.maxTotalUncompressedSize) bytes")
            }
            total = sum
            if stat.size >= limits.ratioCheckMinimumSize {
                let ratio = Double(stat.size) / Double(max(stat.comp_size, 1))
                if ratio > limits.maxCompressionRatio {
                    throw entryError(.archiveLimit, name,
                                     "compression ratio \(Int(ratio)):1 exceeds the limit of \(Int(limits.maxCompressionRatio)):1")
                }
            }
            files.append(.init(index: index, path: entry.path, size: stat.size))
        }

        let directories = try directories(of: entries, namesByPath: namesByPath)
        return BundleContents(archivePath: archivePath, files: files, directories: directories)
    }

    /// The first control byte (below 0x20, or 0x7f) in a C string, if any.
    private static func controlByte(in name: UnsafePointer<CChar>) -> UInt8? {
        var cursor = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
        while cursor.pointee != 0 {
            if cursor.pointee < 0x20 || cursor.pointee == 0x7f { return cursor.pointee }
            cursor += 1
        }
        return nil
    }

    /// Refuses symlinks and special files, judged by Unix mode bits when the
    /// entry was made on Unix; the name's trailing `/` decides file or directory.
    private func checkType(of archive: ZipArchive, index: UInt64, name: String) throws {
        var opsys: UInt8 = 0
        var attributes: UInt32 = 0
        guard zip_file_get_external_attributes(archive.handle, index, 0, &opsys, &attributes) == 0 else {
            throw entryError(.corruptArchive, name, "cannot be read: \(archive.lastErrorDescription)")
        }
        guard opsys == UInt8(ZIP_OPSYS_UNIX) else { return }
        switch (attributes >> 16) & UInt32(S_IFMT) {
        case 0, UInt32(S_IFREG), UInt32(S_IFDIR): return
        case UInt32(S_IFLNK): throw entryError(.unsafeEntry, name, "symbolic link")
        default: throw entryError(.unsafeEntry, name, "special file (neither a regular file nor a directory)")
        }
    }

    /// Every directory to create, explicit or implied by a deeper entry,
    /// sorted parents first; refuses a file used as another entry's parent.
    private func directories(of entries: [(name: String, entry: EntryName)],
                             namesByPath: [String: (name: String, isDirectory: Bool)]) throws -> [String] {
        var directories = Set<String>()
        for (name, entry) in entries {
            if entry.isDirectory { directories.insert(entry.path) }
            let path = entry.path.utf8
            var cursor = path.startIndex
            while let slash = path[cursor...].firstIndex(of: UInt8(ascii: "/")) {
                let parent = String(entry.path[..<slash])
                if let existing = namesByPath[parent], !existing.isDirectory {
                    throw entryError(.unsafeEntry, existing.name, "is both a file and the parent of '\(name.escapedForMessage)'")
                }
                directories.insert(parent)
                cursor = path.index(after: slash)
            }
        }
        return directories.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
