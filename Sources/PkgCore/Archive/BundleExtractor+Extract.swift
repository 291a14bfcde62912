import Glibc

extension BundleExtractor {
    /// Extracts an inspected bundle into `directory`, which must exist and be empty.
    ///
    /// Creates every directory first (mode 0755), then the files (0644,
    /// `O_EXCL|O_NOFOLLOW`) on `workers` threads, each with its own libzip
    /// handle, hashing each file with SHA-256 while writing it. Does not
    /// fsync: the caller syncs the filesystem once.
    ///
    /// A CRC mismatch, a truncated entry or one whose bytes differ from its
    /// declared size is `.corruptArchive`; a full disk is
    /// `.insufficientSpace`. On the first error every worker stops and that
    /// error is thrown; the caller removes `directory`.
    ///
    /// - Parameters:
    ///   - contents: the listing ``inspect()`` returned for this archive.
    ///   - directory: existing, empty target directory.
    ///   - workers: threads to extract with; at least one is used.
    /// - Returns: each regular file's relative path, size and SHA-256.
    public func extract(_ contents: BundleContents, into directory: String, workers: Int = 2) throws -> FileIndex {
        guard contents.archivePath == archivePath else {
            throw PkgError(.invalidArgument,
                           "\(label): contents were inspected from \(contents.archivePath), not \(archivePath)")
        }
        let rootFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard rootFD >= 0 else { throw labelled(fileSystemError("open", directory)) }
        defer { close(rootFD) }

        for path in contents.directories where mkdirat(rootFD, path, 0o755) != 0 {
            throw labelled(fileSystemError("create directory", directory + "/" + path))
        }
        if contents.files.isEmpty { return FileIndex() }

        let run = ExtractionRun(extractor: self, files: contents.files, rootFD: rootFD, directory: directory)
        WorkerThreads.run(count: max(1, min(workers, contents.files.count))) { _ in run.work() }
        if let error = run.firstError { throw error }
        return FileIndex(files: run.index)
    }

    /// `error` with this extractor's label in front of its message.
    func labelled(_ error: PkgError) -> PkgError {
        error.with(message: "\(label): \(error.message)")
    }
}
