import PkgCrypto

/// One SHA-256 naming a whole tree of files by what a device can check: each
/// file's path, content hash and size, sorted by path (modes are not part of
/// it: installed files are 0644 whatever the source said). A device computes it
/// from the record of its installed version, so it can tell which published
/// delta starts from exactly the tree it has before fetching anything.
package enum TreeDigest {
    /// The digest of `files`, given as (path, SHA-256 hex, size).
    package static func of(_ files: [(path: String, sha256: String, size: UInt64)]) -> String {
        var hasher = SHA256()
        for file in files.sorted(by: { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }) {
            hasher.update(data: Array(file.path.utf8) + [0] + Array(file.sha256.utf8) + [0] + Array(String(file.size).utf8) + [10])
        }
        return hasher.finalize().hexString
    }

    /// The digest of an installed version's index.
    package static func of(_ index: FileIndex) -> String {
        of(index.files.map { (path: $0.key, sha256: $0.value.sha256, size: $0.value.size) })
    }

    /// The digest of a published index.
    package static func of(_ index: PublishedFileIndex) -> String {
        of(index.files.map { (path: $0.path, sha256: $0.sha256, size: $0.size) })
    }
}
