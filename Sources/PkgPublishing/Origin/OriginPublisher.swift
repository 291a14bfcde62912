import PkgCrypto
import Glibc
import PkgCore

/// Copies what a publishing folder's current manifest (and timestamp) can name into the folder
/// an origin serves (nginx's root, a mounted bucket, an rsync staging tree), in the one order
/// that never shows a device a manifest whose files are missing: every content-named file
/// first (the manifest's snapshot among them, so the timestamp's name for it is there before
/// the timestamp, and the roots of trust in `roots/`), then `timestamp.json`, then `manifest.json`. What
/// ``PublishingFolder/publish(to:dryRun:verify:progress:)`` runs, holding the source's shared
/// lock and the destination's exclusive one.
///
/// Content-named files are streamed (bounded memory, ``PublishedFile/copy(in:to:namedBy:flush:)``)
/// under temporary names, flushed with one `syncfs`, then renamed to their names; the two
/// mutable files are each written to a temporary name, fsynced and renamed. A failure at any
/// point removes the temporary files and leaves the destination's manifest as it was, so the
/// old release keeps serving; a kill leaves temporary files that the next holder of the
/// destination's lock removes. A file already there under its content name and size is
/// skipped (read and hashed only with `verify`); one of another size, or with `verify` other
/// bytes, is refused: its name says it never changes, and a CDN may have cached it.
struct OriginPublisher {
    /// The publishing folder (`pack`'s OUT_DIR).
    let source: PublishingFolder
    /// The folder the origin serves.
    let destination: PublishingFolder
    /// Re-hashes files already at the destination instead of trusting their names and sizes.
    let verify: Bool

    /// What one publish copies and writes, found before anything is written.
    private struct Plan {
        var manifest: [UInt8]
        var timestamp: [UInt8]?
        var oldTimestamp: [UInt8]?
        var opened: OpenedManifest
        var references: ManifestReferences
        var toCopy: [PublishedFile] = []
        var summary: PublishSummary
    }

    /// Publishes; with `dryRun`, only finds what it would copy. `progress` hears of every copied file.
    func publish(dryRun: Bool, progress: ((PublishProgress) -> Void)?) throws -> PublishSummary {
        var plan = try makePlan()
        if dryRun {
            plan.summary.copied = plan.toCopy.count
            plan.summary.copiedBytes = plan.toCopy.reduce(0) { $0 + ($1.size ?? 0) }
            return plan.summary
        }
        try stage(&plan, progress: progress)
        try writeMutableFiles(plan)
        return plan.summary
    }

    /// Reads and checks the source's manifest and timestamp against the destination, and finds
    /// which named files the destination lacks.
    private func makePlan() throws -> Plan {
        guard let manifest = try PublishedFile.readRegularFile(source.manifestPath) else { throw source.missingManifest() }
        let opened = try TrustPolicy().open(manifest, source: source.manifestPath, now: .distantPast)
        let timestamp = try readTimestamp(naming: opened)
        let references = try ManifestReferences(manifest: manifest, in: source.root)
        try refuseOlderThanDestination(opened, bytes: manifest)
        let oldTimestamp = try PublishedFile.readRegularFile(destination.timestampPath, limit: Timestamp.maxSize)
        let current = try PublishedFile.readRegularFile(destination.manifestPath)
        if timestamp == nil, oldTimestamp != nil, current != manifest {
            throw PkgError(.invalidArgument, "\(destination.timestampPath) names the manifest there now, and \(source.root) "
                           + "has no \(PublishedLayout.timestampName) for the new one: devices with --timestamp-key would "
                           + "refuse it; sign one first (pkgctl timestamp \(source.root) --key KEYFILE)")
        }
        var plan = Plan(manifest: manifest, timestamp: timestamp, oldTimestamp: oldTimestamp, opened: opened,
                        references: references,
                        summary: PublishSummary(sequence: opened.isSigned ? opened.manifest.sequence : nil))
        plan.summary.external = references.external
        for file in try rootFiles() + references.files {
            if let size = try file.existingSize(in: destination.root, verify: verify) {
                plan.summary.skipped += 1
                plan.summary.skippedBytes += size
            } else {
                plan.toCopy.append(file)
            }
        }
        if let timestamp, oldTimestamp != timestamp { plan.summary.mutableFiles.append(PublishedLayout.timestampName) }
        if current != manifest { plan.summary.mutableFiles.append(PublishedLayout.manifestName) }
        return plan
    }

    /// Copies every file of `plan` to a temporary name beside its own, flushes them with one
    /// `syncfs`, renames each to its name, and flushes again. On a failure the temporary files are removed.
    private func stage(_ plan: inout Plan, progress: ((PublishProgress) -> Void)?) throws {
        var state = PublishProgress(totalFiles: plan.toCopy.count, totalBytes: plan.toCopy.reduce(0) { $0 + ($1.size ?? 0) })
        var staged: [(temporary: String, path: String)] = []
        do {
            for file in plan.toCopy {
                let path = destination.path(file.path)
                try FileSystem.makeDirectories(PathName.parent(path))
                let temporary = FileSystem.temporaryName(beside: path)
                let size: UInt64
                if file == plan.references.archive || file == plan.references.snapshot {
                    // Written from the manifest itself: an earlier pkgctl, or a hand, wrote neither.
                    try FileSystem.createExclusively(plan.manifest, at: temporary, mode: 0o644, flush: false)
                    size = UInt64(plan.manifest.count)
                } else {
                    size = try file.copy(in: source.root, to: temporary, namedBy: source.manifestPath, flush: false)
                }
                staged.append((temporary, path))
                state.files += 1
                state.bytes += size
                plan.summary.copied += 1
                plan.summary.copiedBytes += size
                progress?(state)
            }
            if !staged.isEmpty { try FileSystem.syncFileSystem(containing: destination.root) }
        } catch {
            for file in staged { unlink(file.temporary) }
            throw error
        }
        for (index, file) in staged.enumerated() where rename(file.temporary, file.path) != 0 {
            let failure = fileSystemError("rename \(file.temporary) to", file.path)
            for rest in staged[index...] { unlink(rest.temporary) }
            throw failure
        }
        if !staged.isEmpty { try FileSystem.syncFileSystem(containing: destination.root) }
    }

    /// Writes `timestamp.json`, then `manifest.json`, after checking again that no publisher wrote
    /// a newer manifest meanwhile. If the manifest cannot be written, the old timestamp goes back.
    private func writeMutableFiles(_ plan: Plan) throws {
        try refuseOlderThanDestination(plan.opened, bytes: plan.manifest)
        let mutable = plan.summary.mutableFiles
        if mutable.contains(PublishedLayout.timestampName), let timestamp = plan.timestamp {
            try FileSystem.writeAtomically(timestamp, to: destination.timestampPath)
        }
        guard mutable.contains(PublishedLayout.manifestName) else { return }
        // Its archive's time says when it became current (prune's grace period counts from the next one).
        let archive = destination.path(plan.references.archive.path)
        if utimensat(AT_FDCWD, archive, nil, 0) != 0 { throw fileSystemError("touch", archive) }
        do {
            try FileSystem.writeAtomically(plan.manifest, to: destination.manifestPath)
        } catch {
            if mutable.contains(PublishedLayout.timestampName), let old = plan.oldTimestamp {
                try? FileSystem.writeAtomically(old, to: destination.timestampPath)
            }
            throw error
        }
    }

    /// The roots of trust of the source (`roots/N.json`), copied like content-named files: a root
    /// is never rewritten, and the manifest a new root's keys signed must find it there.
    private func rootFiles() throws -> [PublishedFile] {
        try source.rootVersions().map { version in
            let path = RootDocument.path(version: version)
            guard let bytes = try PublishedFile.readRegularFile(source.path(path), limit: RootDocument.maxSize) else {
                throw PkgError(.fileSystem, "\(source.path(path)): vanished while publishing")
            }
            return PublishedFile(path: path, sha256: SHA256.hash(data: bytes).hexString, size: UInt64(bytes.count))
        }
    }

    /// `timestamp.json` of the source, which must name its manifest; nil when there is none.
    private func readTimestamp(naming manifest: OpenedManifest) throws -> [UInt8]? {
        let path = source.timestampPath
        guard let bytes = try PublishedFile.readRegularFile(path, limit: Timestamp.maxSize) else { return nil }
        let envelope = try SignedEnvelope.parse(bytes, source: path, what: "timestamp")
        let timestamp = try Timestamp.parse(envelope.payloadBytes, source: path)
        guard timestamp.manifestSHA256 == manifest.payloadSHA256 else {
            throw PkgError(.invalidArgument, "\(path) names another manifest (sequence \(timestamp.manifestSequence)) than "
                           + "\(source.manifestPath): sign a new one (pkgctl timestamp) before publishing")
        }
        return bytes
    }

    /// Refuses to replace a destination manifest signed with a higher sequence than `opened`,
    /// or with the same sequence and other bytes (another publisher got there first), and a
    /// signed one with an unsigned one.
    private func refuseOlderThanDestination(_ opened: OpenedManifest, bytes: [UInt8]) throws {
        let path = destination.manifestPath
        guard let current = try PublishedFile.readRegularFile(path), current != bytes,
              let there = try? TrustPolicy().open(current, source: path, now: .distantPast), there.isSigned else { return }
        guard opened.isSigned, let sequence = opened.manifest.sequence else {
            throw PkgError(.invalidArgument, "\(path) is signed and \(source.manifestPath) is not: devices "
                           + "that trust signed manifests would refuse it; sign it (pkgctl sign) first")
        }
        guard let theirs = there.manifest.sequence, theirs >= sequence else { return }
        throw PkgError(.invalidArgument, "\(path) has sequence \(theirs), " + (theirs == sequence ? "the same as" : "higher than")
                       + " \(source.manifestPath) (\(sequence)): another publisher published meanwhile; "
                       + "pack or sign on top of what is published")
    }
}
