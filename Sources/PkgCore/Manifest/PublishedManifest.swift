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
        if let signer {
            try FileSystem.writeAtomically(try signer.sign(manifest), to: path)
        } else {
            try FileSystem.writeAtomically(try manifest.encoded() + [UInt8(ascii: "\n")], to: path)
        }
    }
}
