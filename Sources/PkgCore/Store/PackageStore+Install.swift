import FoundationEssentials
import Glibc
import CSystemShims

extension PackageStore {
    /// Extracts a verified zip into a new version directory, atomically: the
    /// bundle is checked and extracted into `staging/`, flushed to disk, its
    /// record written, then renamed to `packages/NAME/VERSION`. A failure before
    /// the rename leaves nothing of it; the version is either wholly installed
    /// or absent. Does not activate it (see ``activate(_:version:)``).
    ///
    /// With `replacing`, an installed, inactive directory of the same version
    /// (a bundle the origin re-published) stays until the new one is wholly
    /// extracted, then the two are exchanged in one `renameat2(RENAME_EXCHANGE)`
    /// (discard and rename where the filesystem cannot exchange), so a failed
    /// download never loses a rollback target. The active version is never
    /// replaced: a resolver serving it holds its directory open.
    public func install(_ entry: ManifestEntry, archive: String, limits: ExtractionLimits = ExtractionLimits(),
                        workers: Int = 2, replacing: Bool = false) throws -> VersionRecord {
        try install(entry, archive: archive, limits: limits, workers: workers, checkSpace: true, replacing: replacing)
    }

    /// With `discardingArchive` (a download the store staged), the zip is unlinked once
    /// extracted, before the flush: its dirty pages are then never written (a `syncfs` with it
    /// still there wrote the whole zip to disk, as many bytes again as a bundle's deflated size).
    func install(_ entry: ManifestEntry, archive: String, limits: ExtractionLimits,
                 workers: Int, checkSpace: Bool, replacing: Bool = false,
                 discardingArchive: Bool = false) throws -> VersionRecord {
        try layout.prepare()
        let label = "\(entry.name) \(entry.version)"
        try checkInstallable(entry, replacing: replacing)
        let extractor = BundleExtractor(archivePath: archive, label: label, limits: limits)
        let contents = try extractor.inspect()
        if checkSpace { try ensureRoomToExtract(contents, label: label) }
        return try installStaged(entry, replacing: replacing) { staging in
            let index = try extractor.extract(contents, into: staging, workers: workers)
            if discardingArchive, unlink(archive) != 0, errno != ENOENT { throw fileSystemError("unlink", archive) }
            return index
        }
    }

    /// Refuses to install over an installed version, unless `replacing` an inactive one.
    func checkInstallable(_ entry: ManifestEntry, replacing: Bool) throws {
        let destination = layout.versionDirectory(entry.name, entry.version)
        if FileSystem.exists(destination), !replacing || activeVersion(of: entry.name) == entry.version {
            throw PkgError(.invalidArgument, "\(entry.name) \(entry.version) is already installed at \(destination)"
                           + (replacing ? " and active; an active version is not replaced in place" : ""))
        }
    }

    /// The one place a version enters the store: `populate` fills a new staging
    /// directory and returns its index; the directory is flushed, then its record
    /// is written and it is renamed into place (when replacing: the old record
    /// removed, the directories exchanged, the new record written).
    func installStaged(_ entry: ManifestEntry, replacing: Bool,
                       populate: (_ staging: String) throws -> FileIndex) throws -> VersionRecord {
        try layout.prepare()
        let destination = layout.versionDirectory(entry.name, entry.version)
        let replaces = FileSystem.exists(destination)
        let recordFile = layout.recordFile(entry.name, entry.version)
        do {
            return try withStagingDirectory(prefix: "\(entry.name)-\(entry.version)") { staging in
                let index = try populate(staging.path)
                try FileSystem.syncFileSystem(containing: staging.path)
                let record = VersionRecord(entry: entry, index: index)
                try FileSystem.makeDirectories(layout.recordDirectory(entry.name))
                if replaces {
                    // The old record goes first: a crash before the new one is written leaves
                    // a directory without a record, which recovery removes. Never new files
                    // under the old record, whose hashes a delta install would trust.
                    if unlink(recordFile) != 0, errno != ENOENT { throw fileSystemError("unlink", recordFile) }
                    try FileSystem.syncDirectory(layout.recordDirectory(entry.name))
                    // After the exchange the staging directory holds the old version, removed on exit.
                    try exchange(staging, destination)
                    try record.save(to: recordFile)
                    try FileSystem.syncDirectory(layout.packageDirectory(entry.name))
                    if FileSystem.exists(layout.overlayDirectory(entry.name, entry.version)) {
                        try discardTree(layout.overlayDirectory(entry.name, entry.version))
                    }
                    return record
                }
                try record.save(to: recordFile)
                try FileSystem.makeDirectories(layout.packageDirectory(entry.name))
                try staging.publish(as: destination)
                try FileSystem.syncDirectory(layout.packageDirectory(entry.name))
                return record
            }
        } catch {
            if !replaces, !FileSystem.exists(layout.versionDirectory(entry.name, entry.version)) {
                unlink(recordFile)
            }
            throw error
        }
    }

    /// Swaps two directories in one step; where the filesystem cannot (EINVAL:
    /// vfat, some network filesystems) the old one is discarded first, leaving
    /// a moment without it.
    private func exchange(_ staging: StagingDirectory, _ destination: String) throws {
        if pkg_exchange(staging.path, destination) == 0 { return }
        guard errno == EINVAL || errno == ENOSYS else { throw fileSystemError("exchange \(staging.path) with", destination) }
        try discardTree(destination)
        try staging.publish(as: destination)
    }

    /// Makes `version` the one served, by replacing the `current` symlink atomically.
    public func activate(_ name: String, version: String) throws {
        guard try record(of: name, version: version) != nil else {
            throw PkgError(.notInstalled, "\(name) \(version) is not installed under \(layout.root)")
        }
        try FileSystem.replaceSymlink(layout.currentLink(name), target: version)
    }

    /// Leaves `name` with no active version (its versions stay installed), durably: resolvers
    /// stop serving it and requests under its routes go to the origin.
    func deactivate(_ name: String) throws {
        if unlink(layout.currentLink(name)) != 0, errno != ENOENT {
            throw fileSystemError("unlink", layout.currentLink(name))
        }
        try FileSystem.syncDirectory(layout.packageDirectory(name))
    }

    /// Fails with ``PkgError/Code/insufficientSpace`` unless the staging filesystem
    /// has room for `bytes` more bytes (a download, say).
    public func ensureRoom(forBytes bytes: UInt64, files: UInt64 = 1, purpose: String) throws {
        try layout.prepare()
        let free = try FileSystem.freeSpace(at: layout.staging)
        if free.bytes < bytes {
            throw PkgError(.insufficientSpace,
                           "\(purpose): needs \(bytes.formattedBytes), only \(free.bytes.formattedBytes) free under \(layout.staging)")
        }
        if free.inodes < files {
            throw PkgError(.insufficientSpace,
                           "\(purpose): needs \(files) files, only \(free.inodes) inodes free under \(layout.staging)")
        }
    }

    private func ensureRoomToExtract(_ contents: BundleContents, label: String) throws {
        let entries = UInt64(contents.fileCount + contents.directoryCount)
        let blockSlack = entries * 4096
        try ensureRoom(forBytes: contents.totalUncompressedSize + blockSlack, files: entries,
                       purpose: "\(label): extracting")
    }

    /// Runs `work` on a new, empty, uniquely named directory under `staging/`, which
    /// on exit has been renamed into place or is removed (``StagingDirectory``).
    func withStagingDirectory<Result>(prefix: String, _ work: (StagingDirectory) throws -> Result) throws -> Result {
        try StagingDirectory.run(in: layout.staging, prefix: prefix, work)
    }
}

extension UInt64 {
    /// "12.3 MB" style text.
    var formattedBytes: String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(self)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(self) B" : "\(DecimalText.tenths(value)) \(units[unit])"
    }
}
