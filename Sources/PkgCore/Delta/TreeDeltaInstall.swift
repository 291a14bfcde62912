import PkgCrypto
import FoundationEssentials
import Glibc

/// Installs a version from the ``TreeDelta`` that starts from the tree of the
/// active version: one request, whose file the manifest names by hash. Unchanged
/// files are hard-linked from the active version, moved ones linked from their
/// old path, new contents decoded from the data frame against the base files it
/// names (each read back and checked against the installed record first). The
/// tree built must have the delta's target ``TreeDigest``, or nothing is installed.
struct TreeDeltaInstall {
    let store: PackageStore
    let downloader: Downloader
    let manifestURL: String
    let limits: ExtractionLimits

    /// The delta of `entry` that starts from exactly the active version's tree, and
    /// that version's record; nil when there is none or it is not smaller than the zip.
    func applicableDelta(for entry: ManifestEntry) throws -> (DeltaReference, VersionRecord)? {
        guard !entry.deltas.isEmpty, let active = store.activeVersion(of: entry.name),
              let record = try store.record(of: entry.name, version: active) else { return nil }
        let digest = TreeDigest.of(record.index)
        guard let reference = entry.deltas.first(where: { $0.base == digest }), reference.size < entry.size else {
            return nil
        }
        return (reference, record)
    }

    /// Why `entry`'s deltas gave way when ``install(_:replacing:progress:)`` returned nil: none
    /// starts from the active version's tree, the one that does is not smaller than the zip, or
    /// the origin did not have it.
    func declineReason(for entry: ManifestEntry) throws -> ZipFallback {
        guard let active = store.activeVersion(of: entry.name), let record = try store.record(of: entry.name, version: active),
              let reference = entry.deltas.first(where: { $0.base == TreeDigest.of(record.index) }) else { return .missingBase }
        return reference.size < entry.size ? .transferError : .tooLarge
    }

    /// Installs `entry` from its delta and returns the record, or nil when no delta
    /// applies or the origin does not have it (404, 410). A delta that fails any
    /// check is an error; the caller falls back to the next way.
    func install(_ entry: ManifestEntry, replacing: Bool,
                 progress: @escaping @Sendable (UInt64, UInt64) -> Void) throws -> VersionRecord? {
        guard let (reference, base) = try applicableDelta(for: entry) else { return nil }
        let label = "\(entry.name) \(entry.version)"
        let url = try ManifestEntry.resolve(reference.url, relativeTo: manifestURL)
        try store.checkInstallable(entry, replacing: replacing)
        try store.ensureRoom(forBytes: reference.size, purpose: "\(label): downloading \(url)")
        let bytes: [UInt8]
        do {
            bytes = try store.withStagingDirectory(prefix: "delta") { staging in
                let file = staging.path + "/delta"
                try downloader.download(from: url, to: file, expectedSize: reference.size,
                                        expectedSHA256: reference.sha256, progress: progress)
                return try FileSystem.read(file) ?? []
            }
        } catch let error as PkgError where error.isNotFound {
            return nil
        } catch let error as PkgError {
            throw error.with(message: "\(label): delta: \(error.message)")
        }
        let delta = try TreeDelta.parse(bytes, label: label)
        guard delta.header.base == reference.base, delta.header.target == reference.target else {
            throw PkgError(.checksumMismatch, "\(label): delta \(url): its trees are not the ones the manifest names")
        }
        let application = try TreeDeltaApplication(delta: delta, base: base.index, limits: limits, label: label)
        let baseDirectory = store.layout.versionDirectory(base.entry.name, base.entry.version)
        try store.ensureRoom(forBytes: application.dataSize, files: UInt64(delta.header.files.count),
                             purpose: "\(label): applying the delta")
        return try store.installStaged(entry, replacing: replacing) { staging in
            try application.apply(from: baseDirectory, into: staging)
        }
    }
}
