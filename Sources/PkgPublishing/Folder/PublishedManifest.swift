import PkgCrypto
import Glibc
import PkgCore

/// `manifest.json` as a publisher keeps it: a plain manifest, or one inside a signed envelope,
/// read back without verification (it is the publisher's own file).
struct PublishedManifest {
    /// The manifest.
    let manifest: Manifest
    /// Whether it was inside a signed envelope.
    let isSigned: Bool
    /// The ids of the keys its signatures name (empty when unsigned).
    let signerIDs: [String]

    /// The manifest in `path`; nil when there is no file.
    static func read(_ path: String) throws -> PublishedManifest? {
        guard let bytes = try FileSystem.read(path) else { return nil }
        let opened = try TrustPolicy().open(bytes, source: path, now: .distantPast)
        let signers = opened.isSigned ? try SignedEnvelope.parse(bytes, source: path).keyIDs : []
        return PublishedManifest(manifest: opened.manifest, isSigned: opened.isSigned, signerIDs: signers)
    }

    /// Makes the manifest `bytes` current in `folder`: archives them as `manifests/<sha256>.json`
    /// (``PublishedLayout/manifestArchive(sha256:)``), whose modification time says when they were
    /// last written (`prune` keeps what a manifest of its grace period names), a signed one also
    /// as its snapshot (``PublishedLayout/snapshot(payloadSHA256:)``), then renames them over
    /// `manifest.json`. Both are written under temporary names, flushed and renamed.
    static func write(bytes: [UInt8], in folder: PublishingFolder) throws {
        let archive = folder.path(PublishedLayout.manifestArchive(sha256: SHA256.hash(data: bytes).hexString))
        if FileSystem.exists(archive) {
            if utimensat(AT_FDCWD, archive, nil, 0) != 0 { throw fileSystemError("touch", archive) }
        } else {
            try FileSystem.makeDirectories(PathName.parent(archive))
            try FileSystem.writeAtomically(bytes, to: archive)
        }
        let opened = try TrustPolicy().open(bytes, source: folder.manifestPath, now: .distantPast)
        if opened.isSigned {
            let snapshot = folder.path(PublishedLayout.snapshot(payloadSHA256: opened.payloadSHA256))
            try FileSystem.makeDirectories(PathName.parent(snapshot))
            try FileSystem.writeAtomically(bytes, to: snapshot)
        }
        try FileSystem.writeAtomically(bytes, to: folder.manifestPath)
    }
}
