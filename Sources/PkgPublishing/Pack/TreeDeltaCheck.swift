import PkgCore
import PkgCrypto

/// The publisher's proof that a tree delta it wrote rebuilds its release: the
/// delta is parsed and applied as a device would (``TreeDeltaApplication``, the same
/// checks and decoder), in memory against the base's published objects, and the tree
/// it builds must equal the target index path for path, hash for hash and size for
/// size. The base objects are hashed as they are read, as a device hashes its installed
/// files: a damaged object in the folder would make a delta that builds on the
/// publisher's machine and on no device. A delta that fails is never published: the
/// pack stops before its manifest.
package enum TreeDeltaCheck {
    /// Throws `verificationFailed`, naming `label`, unless `bytes` applied to `base`
    /// builds exactly `target`; `contents` reads an object's bytes by SHA-256.
    package static func verify(_ bytes: [UInt8], from base: PublishedFileIndex, to target: PublishedFileIndex,
                               label: String, contents: (String) throws -> [UInt8]) throws {
        func refuse(_ reason: String) -> PkgError {
            PkgError(.verificationFailed, "\(label): the tree delta written does not rebuild the release (\(reason)); "
                     + "the manifest is left as it was")
        }
        let built: FileIndex
        do {
            let delta = try TreeDelta.parse(bytes, label: label)
            guard delta.header.base == TreeDigest.of(base) else { throw refuse("it starts from another tree") }
            let application = try TreeDeltaApplication(delta: delta, base: base.fileIndex, limits: ExtractionLimits(),
                                                       label: label)
            built = try application.builtTree { entry in
                let bytes = try contents(entry.sha256)
                guard SHA256.hash(data: bytes).hexString == entry.sha256 else {
                    throw refuse("object \(PublishedFileIndex.objectPath(entry.sha256)) differs from its name")
                }
                return bytes
            }
        } catch let error as PkgError where error.code == .checksumMismatch || error.code == .unsafeEntry {
            let prefix = label + ": "
            throw refuse(error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message)
        }
        let expected = target.fileIndex
        if let path = Set(expected.files.keys).symmetricDifference(built.files.keys).min() {
            throw refuse("'\(path.escapedForMessage)' \(expected.files[path] == nil ? "is extra" : "is missing")")
        }
        if let path = expected.files.keys.sorted().first(where: { expected.files[$0] != built.files[$0] }) {
            throw refuse("'\(path.escapedForMessage)' has other content")
        }
    }
}
