import FoundationEssentials
import Glibc

/// Installs a version file by file from its published index: files whose
/// content an installed version already has are hard-linked from it
/// (installed versions never change, so sharing an inode is safe), the others
/// are downloaded as objects, several at once on one multi handle (HTTP/2
/// multiplexed where the origin offers it), each checked against its SHA-256
/// while it streams in; one that fails is fetched again alone with the usual
/// retries. Objects are stored plain and asked for compressed: the origin
/// (nginx `gzip`/`gzip_static`, any CDN) compresses what is worth it, so no
/// second copy of each object is published. Objects wait in `ROOT/objects`
/// until the version is installed, so a run that was killed resumes without
/// fetching them again.
///
/// With image variants accepted (``ImageVariantSelection``) it installs only the files the
/// device will serve, even for a first install (nothing to reuse, but the images it skips).
struct DeltaInstall {
    let store: PackageStore
    let downloader: Downloader
    let manifestURL: String
    let limits: ExtractionLimits
    var images = ImageVariantSelection(accepted: [])

    /// What a delta install would fetch.
    struct Plan {
        var index: PublishedFileIndex
        /// Where each known content already is in the store, by SHA-256.
        var local: [String: String]
        /// Contents to download, by SHA-256, with their sizes.
        var missing: [String: UInt64]
        /// What the missing contents weigh on the wire: their deflated sizes where the
        /// index gives them (an origin serving objects with gzip), else their sizes.
        var missingWireBytes: UInt64
        var missingBytes: UInt64 { missing.values.reduce(0, +) }
    }

    /// Installs `entry` from its index and returns the record, or nil when a
    /// delta does not pay (nothing installed to reuse and no image left out, or the missing objects
    /// weigh on the wire as much as the zip) or the origin does not have the index or an
    /// object (404, 410); then the caller installs the zip. A hostile index, or
    /// an index or object whose bytes do not match their hash, is an error (the
    /// caller tries the zip after a `checksumMismatch` or `sizeMismatch`).
    /// `declined` says why it returned nil (``ZipFallback``).
    func install(_ entry: ManifestEntry, reference: IndexReference, replacing: Bool, declined: inout ZipFallback?,
                 progress: @escaping @Sendable (UInt64, UInt64) -> Void) throws -> VersionRecord? {
        do {
            let installed = try installOrDecline(entry, reference: reference, replacing: replacing, progress: progress)
            if installed == nil { declined = .tooLarge }
            return installed
        } catch let error as PkgError where error.isNotFound {
            declined = .transferError
            return nil
        }
    }

    private func installOrDecline(_ entry: ManifestEntry, reference: IndexReference, replacing: Bool,
                                  progress: @escaping @Sendable (UInt64, UInt64) -> Void) throws -> VersionRecord? {
        let local = try localContents(of: entry.name)
        // Nothing installed to reuse: every object would be fetched, as heavy as the zip or more.
        guard !local.isEmpty || !images.accepted.isEmpty else { return nil }
        let label = "\(entry.name) \(entry.version)"
        var index = try fetchIndex(reference, label: label)
        index.files = images.select(index.files)
        var missing: [String: UInt64] = [:]
        var wire: UInt64 = 0
        for file in index.files where local[file.sha256] == nil && missing[file.sha256] == nil {
            missing[file.sha256] = file.size
            wire += min(file.compressedSize ?? file.size, file.size)  // the index is outside input
        }
        let plan = Plan(index: index, local: local, missing: missing, missingWireBytes: wire)
        let total = plan.missingBytes
        // Bytes on the wire against the zip's (the index is already paid for), each object
        // also costing a request and a response head.
        guard plan.missingWireBytes + Self.requestOverhead * UInt64(missing.count) < entry.size else { return nil }

        try store.checkInstallable(entry, replacing: replacing)
        try store.ensureRoom(forBytes: total, purpose: "\(label): downloading changed files")
        try FileSystem.makeDirectories(store.layout.objects)
        var received: UInt64 = 0
        var items: [ParallelDownload.Item] = []
        var partlyReceived: [ParallelDownload.Item] = []
        for (sha256, size) in plan.missing.sorted(by: { $0.key < $1.key }) where !hasVerifiedObject(sha256, size: size) {
            let item = ParallelDownload.Item(url: try objectURL(sha256), path: partialPath(sha256), size: size,
                                             sha256: sha256)
            // What an earlier run received of an object continues with a Range, outside the batch.
            if FileSystem.exists(item.path) { partlyReceived.append(item) } else { items.append(item) }
        }
        // All at once first; whatever failed again one by one, with retries and their errors.
        let failed = try ParallelDownload(downloader: downloader, parallel: Self.parallelObjects).run(items) { item in
            if rename(item.path, objectPath(item.sha256)) != 0 { unlink(item.path) }
            received += item.size
            progress(received, total)
        }
        let connection = try downloader.makeHandle(url: manifestURL)
        for item in partlyReceived + failed {
            try fetchObject(item.sha256, size: item.size, on: connection)
        }
        let record = try store.installStaged(entry, replacing: replacing) { staging in
            try populate(staging, plan: plan)
        }
        for sha256 in plan.missing.keys { unlink(objectPath(sha256)) }
        return record
    }

    /// Every content of the package's installed versions, by SHA-256.
    private func localContents(of name: String) throws -> [String: String] {
        var local: [String: String] = [:]
        for record in try store.retainedVersions(of: name).reversed() {
            let directory = store.layout.versionDirectory(name, record.entry.version)
            for (path, file) in record.index.files where local[file.sha256] == nil {
                local[file.sha256] = directory + "/" + path
            }
        }
        return local
    }

    private func fetchIndex(_ reference: IndexReference, label: String) throws -> PublishedFileIndex {
        let url = try ManifestEntry.resolve(reference.url, relativeTo: manifestURL)
        return try store.withStagingDirectory(prefix: "index") { staging in
            let file = staging.path + "/index.json"
            try downloader.download(from: url, to: file, expectedSize: reference.size,
                                    expectedSHA256: reference.sha256, compressed: true)
            return try PublishedFileIndex.parse(try FileSystem.read(file) ?? [], label: label, limits: limits)
        }
    }

    /// What one more request costs on the wire besides its body: a request line and
    /// headers out, a status line and headers back (nginx's and CDNs' are 300–500 bytes).
    static let requestOverhead: UInt64 = 400

    /// Objects fetched at once on the multi handle.
    static let parallelObjects = 6

    private func objectPath(_ sha256: String) -> String { store.layout.objects + "/" + sha256 }
    private func objectURL(_ sha256: String) throws -> String {
        try ManifestEntry.resolve(PublishedFileIndex.objectPath(sha256), relativeTo: manifestURL)
    }
    private func partialPath(_ sha256: String) -> String { store.layout.objects + "/" + FileSystem.temporaryPrefix + sha256 }

    /// Whether an earlier run (or this one) left the verified object; a leftover is
    /// hashed again (a crash may have cut what was not yet flushed) and removed when wrong.
    private func hasVerifiedObject(_ sha256: String, size: UInt64) -> Bool {
        let path = objectPath(sha256)
        guard FileSystem.exists(path) else { return false }
        if let digest = try? FileHasher.hash(file: path), digest.sha256 == sha256, digest.size == size { return true }
        unlink(path)
        return false
    }

    /// Downloads one object with the full retry rules, unless it is already there;
    /// bytes an earlier attempt received are kept and continued with a Range.
    private func fetchObject(_ sha256: String, size: UInt64, on connection: EasyHandle) throws {
        let path = objectPath(sha256)
        if hasVerifiedObject(sha256, size: size) { return }
        let partial = partialPath(sha256)
        let url = try objectURL(sha256)
        func download(resuming: Bool) throws {
            try downloader.download(from: url, to: partial, expectedSize: size, expectedSHA256: sha256, compressed: true,
                                    resuming: resuming, on: connection)
        }
        do {
            let resumed = FileSystem.exists(partial)
            do {
                try download(resuming: resumed)
            } catch let error as PkgError where resumed && (error.code == .checksumMismatch || error.code == .sizeMismatch) {
                // The bytes kept from before were not the object's (a crash cut them): once more from zero.
                try download(resuming: false)
            }
        } catch let error as PkgError {
            // Wrong bytes go; a transfer cut short keeps its bytes for the next run.
            if error.code != .transferFailed { unlink(partial) }
            throw error
        }
        if rename(partial, path) != 0 { throw fileSystemError("rename \(partial) to", path) }
    }

    /// Links every file of the index into `staging`, from an installed version or
    /// an object; copies where an inode has reached the filesystem's link limit.
    /// Files get mode 0644, as zip installs do (shared inodes keep theirs).
    private func populate(_ staging: String, plan: Plan) throws -> FileIndex {
        for file in plan.index.files {
            let source = plan.local[file.sha256] ?? objectPath(file.sha256)
            let target = staging + "/" + file.path
            try FileSystem.makeDirectories(PathName.parent(target))
            if link(source, target) != 0 {
                guard errno == EMLINK, let bytes = try FileSystem.read(source) else {
                    throw fileSystemError("link \(source) to", target)
                }
                try FileSystem.createExclusively(bytes, at: target, mode: 0o644)
            }
        }
        return plan.index.fileIndex
    }
}
