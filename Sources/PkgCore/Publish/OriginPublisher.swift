import Crypto
import Glibc

/// Copies what a publishing folder's current manifest (and timestamp) can name into the folder
/// an origin serves (nginx's root, a mounted bucket, an rsync staging tree), in the one order
/// that never shows a device a manifest whose files are missing: every content-named file
/// first, then `timestamp.json`, then `manifest.json`.
///
/// Content-named files are written under temporary names, flushed with one `syncfs`, then
/// renamed to their names; the two mutable files are each written to a temporary name,
/// fsynced and renamed. A failure at any point removes the temporary files and leaves the
/// destination's manifest as it was, so the old release keeps serving. A file already there
/// with the same bytes is skipped; one with other bytes under a content name is refused: its
/// name says it never changes, and a CDN may have cached it.
///
/// ```swift
/// let summary = try OriginPublisher(from: "out", to: "/srv/updates").publish()
/// print(summary.copied, summary.skipped)
/// ```
public struct OriginPublisher: Sendable {
    /// The publishing folder (`pack`'s OUT_DIR).
    public let source: String
    /// The folder the origin serves (created when missing).
    public let destination: String

    /// A publisher from `source` to `destination`.
    public init(from source: String, to destination: String) {
        self.source = source
        self.destination = destination
    }

    /// Publishes; with `dryRun`, only finds what it would copy. `progress` hears of every copied file.
    public func publish(dryRun: Bool = false, progress: ((PublishProgress) -> Void)? = nil) throws -> PublishSummary {
        let manifestPath = source + "/" + PublishedLayout.manifestName
        guard FileSystem.exists(manifestPath) else {
            throw PkgError(.invalidArgument, "\(manifestPath) does not exist: nothing to publish (pkgctl pack writes it)")
        }
        // A destination this run created and then refused to fill is removed (rmdir: only while empty).
        let created = !dryRun && !FileSystem.isDirectory(destination)
        var published = false
        defer { if created, !published { rmdir(destination) } }
        // Held to the end, from before the manifest is read: no pack or prune changes the source,
        // and no other publish or prune the destination.
        var locks: [StoreLock] = []
        defer { withExtendedLifetime(locks) {} }
        if !dryRun {
            try prepareDestination()
            locks.append(try StoreLock(directory: destination))
            if FileSystem.exists(source + "/.pkgctl-lock") { locks.append(try StoreLock(path: source + "/.pkgctl-lock")) }
        }
        guard let manifest = try PublishedFile.readRegularFile(manifestPath) else {
            throw PkgError(.invalidArgument, "\(manifestPath) does not exist: nothing to publish (pkgctl pack writes it)")
        }
        let opened = try TrustPolicy().open(manifest, source: manifestPath, now: .distantPast)
        let timestamp = try readTimestamp(naming: opened)
        var summary = PublishSummary(sequence: opened.isSigned ? opened.manifest.sequence : nil)
        let references = try ManifestReferences(manifest: manifest, in: source)
        summary.external = references.external
        try refuseOlderThanDestination(opened, bytes: manifest)
        let oldTimestamp = try PublishedFile.readRegularFile(destination + "/" + PublishedLayout.timestampName,
                                                             limit: Timestamp.maxSize)
        if timestamp == nil, oldTimestamp != nil, try PublishedFile.readRegularFile(destination + "/"
                                                                                   + PublishedLayout.manifestName) != manifest {
            throw PkgError(.invalidArgument, "\(destination)/\(PublishedLayout.timestampName) names the manifest there now, "
                           + "and \(source) has no \(PublishedLayout.timestampName) for the new one: devices with --timestamp-key "
                           + "would refuse it; sign one first (pkgctl timestamp \(source) --key KEYFILE)")
        }

        var toCopy: [PublishedFile] = []
        for file in references.files {
            if let size = try existingSize(of: file) {
                summary.skipped += 1
                summary.skippedBytes += size
            } else {
                toCopy.append(file)
            }
        }
        for (name, bytes) in [(PublishedLayout.timestampName, timestamp), (PublishedLayout.manifestName, manifest)] {
            guard let bytes else { continue }
            if try PublishedFile.readRegularFile(destination + "/" + name) != bytes { summary.mutableFiles.append(name) }
        }
        var state = PublishProgress(totalFiles: toCopy.count,
                                    totalBytes: toCopy.reduce(0) { $0 + ($1.size ?? 0) })
        if dryRun {
            summary.copied = state.totalFiles
            summary.copiedBytes = state.totalBytes
            return summary
        }

        var staged: [(temporary: String, path: String)] = []
        do {
            for file in toCopy {
                // The archived manifest is written from the manifest itself: an earlier pkgctl, or a hand, wrote none.
                let bytes = file == references.archive ? manifest : try file.read(in: source, namedBy: manifestPath)
                let path = destination + "/" + file.path
                try FileSystem.makeDirectories(PathName.parent(path))
                let temporary = PathName.parent(path) + "/" + FileSystem.temporaryPrefix + "\(getpid())-" + PathName.lastComponent(path)
                unlink(temporary)  // what a killed publish of this process id left; the lock says none runs
                try FileSystem.createExclusively(bytes, at: temporary, mode: 0o644, flush: false)  // one syncfs below
                staged.append((temporary, path))
                state.files += 1
                state.bytes += UInt64(bytes.count)
                summary.copied += 1
                summary.copiedBytes += UInt64(bytes.count)
                progress?(state)
            }
            if !staged.isEmpty { try FileSystem.syncFileSystem(containing: destination) }
        } catch {
            for file in staged { unlink(file.temporary) }
            throw error
        }
        for (index, file) in staged.enumerated() where rename(file.temporary, file.path) != 0 {
            let failure = fileSystemError("rename \(file.temporary) to", file.path)
            for rest in staged[index...] { unlink(rest.temporary) }
            throw failure
        }
        if !staged.isEmpty { try FileSystem.syncFileSystem(containing: destination) }

        // Last, and checked again just before: a publisher that wrote a newer manifest meanwhile wins.
        try refuseOlderThanDestination(opened, bytes: manifest)
        if summary.mutableFiles.contains(PublishedLayout.timestampName), let timestamp {
            try FileSystem.writeAtomically(timestamp, to: destination + "/" + PublishedLayout.timestampName)
        }
        if summary.mutableFiles.contains(PublishedLayout.manifestName) {
            // Its archive's time says when it became current (prune's grace period counts from the next one).
            let archive = destination + "/" + references.archive.path
            if utimensat(AT_FDCWD, archive, nil, 0) != 0 { throw fileSystemError("touch", archive) }
            do {
                try FileSystem.writeAtomically(manifest, to: destination + "/" + PublishedLayout.manifestName)
            } catch {
                // The timestamp must keep naming the manifest that stays.
                if summary.mutableFiles.contains(PublishedLayout.timestampName), let oldTimestamp {
                    try? FileSystem.writeAtomically(oldTimestamp, to: destination + "/" + PublishedLayout.timestampName)
                }
                throw error
            }
        }
        published = true
        return summary
    }

    /// `timestamp.json` of the source, which must name its manifest; nil when there is none.
    private func readTimestamp(naming manifest: OpenedManifest) throws -> [UInt8]? {
        let path = source + "/" + PublishedLayout.timestampName
        guard let bytes = try PublishedFile.readRegularFile(path, limit: Timestamp.maxSize) else { return nil }
        let envelope = try SignedEnvelope.parse(bytes, source: path, what: "timestamp")
        let timestamp = try Timestamp.parse(envelope.payloadBytes, source: path)
        guard timestamp.manifestSHA256 == manifest.payloadSHA256 else {
            throw PkgError(.invalidArgument, "\(path) names another manifest (sequence \(timestamp.manifestSequence)) than "
                           + "\(source)/\(PublishedLayout.manifestName): sign a new one (pkgctl timestamp) before publishing")
        }
        return bytes
    }

    /// Creates the destination when missing, and refuses one that cannot be written.
    private func prepareDestination() throws {
        try FileSystem.makeDirectories(destination)
        guard access(destination, W_OK) == 0 else { throw fileSystemError("write into", destination) }
    }

    /// Refuses to replace a destination manifest signed with a higher sequence than `opened`,
    /// or with the same sequence and other bytes (another publisher got there first), and a
    /// signed one with an unsigned one.
    private func refuseOlderThanDestination(_ opened: OpenedManifest, bytes: [UInt8]) throws {
        let path = destination + "/" + PublishedLayout.manifestName
        guard let current = try PublishedFile.readRegularFile(path), current != bytes,
              let there = try? TrustPolicy().open(current, source: path, now: .distantPast), there.isSigned else { return }
        guard opened.isSigned, let sequence = opened.manifest.sequence else {
            throw PkgError(.invalidArgument, "\(path) is signed and \(source)/\(PublishedLayout.manifestName) is not: devices "
                           + "that trust signed manifests would refuse it; sign it (pkgctl sign) first")
        }
        guard let theirs = there.manifest.sequence, theirs >= sequence else { return }
        throw PkgError(.invalidArgument, "\(path) has sequence \(theirs), " + (theirs == sequence ? "the same as" : "higher than")
                       + " \(source)/\(PublishedLayout.manifestName) (\(sequence)): another publisher published meanwhile; "
                       + "pack or sign on top of what is published")
    }

    /// The size of `file` in the destination when it is there with the right bytes; nil when
    /// it is missing. Other bytes under its name are refused.
    private func existingSize(of file: PublishedFile) throws -> UInt64? {
        let path = destination + "/" + file.path
        guard let bytes = try PublishedFile.readRegularFile(path) else { return nil }
        guard SHA256.hash(data: bytes).hexString == file.sha256 else {
            throw PkgError(.checksumMismatch, "\(path): other bytes than its name says; a content-named file never changes: "
                           + "remove it (and purge it from the CDN) if it is debris")
        }
        return UInt64(bytes.count)
    }
}
