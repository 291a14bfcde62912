import Crypto
import Glibc

/// `manifest.json` as a publisher keeps it: a plain manifest, or one inside a
/// signed envelope, read back without verification (it is the publisher's own file).
enum PublishedManifest {
    /// The manifest in `path` and whether it was signed; nil when there is no file.
    static func read(_ path: String) throws -> (manifest: Manifest, isSigned: Bool)? {
        guard let bytes = try FileSystem.read(path) else { return nil }
        let opened = try TrustPolicy().open(bytes, source: path, now: .distantPast)
        return (opened.manifest, opened.isSigned)
    }

    /// Writes `manifest` to `path` atomically, signed by `signer` when given.
    static func write(_ manifest: Manifest, to path: String, signer: ManifestSigner?) throws {
        let bytes = try signer.map { try $0.sign(manifest) } ?? (try manifest.encoded() + [UInt8(ascii: "\n")])
        try write(bytes: bytes, to: path)
    }

    /// Writes the manifest `bytes` to `path` atomically, after archiving them beside it as
    /// `manifests/<sha256>.json` (``PublishedLayout/manifestArchive(sha256:)``), whose modification
    /// time says when they were last written: `prune` keeps what a manifest of its grace period names.
    static func write(bytes: [UInt8], to path: String) throws {
        let archive = PathName.parent(path) + "/" + PublishedLayout.manifestArchive(sha256: SHA256.hash(data: bytes).hexString)
        if FileSystem.exists(archive) {
            if utimensat(AT_FDCWD, archive, nil, 0) != 0 { throw fileSystemError("touch", archive) }
        } else {
            try FileSystem.makeDirectories(PathName.parent(archive))
            try FileSystem.writeAtomically(bytes, to: archive)
        }
        try FileSystem.writeAtomically(bytes, to: path)
    }
}
