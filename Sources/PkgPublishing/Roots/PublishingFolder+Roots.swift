import FoundationEssentials
import PkgCore

extension PublishingFolder {
    /// `roots/` of this folder.
    var rootsPath: String { path(RootDocument.folder) }

    /// The versions in `roots/`, ascending.
    func rootVersions() throws -> [UInt64] {
        guard FileSystem.isDirectory(rootsPath) else { return [] }
        return try FileSystem.contents(of: rootsPath).compactMap { name in
            guard name.hasSuffix(".json"), let version = UInt64(name.dropLast(5)), name == "\(version).json" else { return nil }
            return version
        }.sorted()
    }

    /// The newest root in `roots/`; nil when there is none.
    public func newestRoot() throws -> TrustedRoot? {
        guard let version = try rootVersions().last else { return nil }
        let path = path(RootDocument.path(version: version))
        guard let bytes = try FileSystem.read(path, limit: RootDocument.maxSize) else { return nil }
        return try TrustedRoot(selfSigned: bytes, source: path)
    }

    /// Adds `draft` as `roots/N.json`, holding the folder's exclusive lock: N must follow the
    /// newest root here (1 when there is none), and the root must verify as a device will verify
    /// it, signed by a threshold of its own root keys and of the newest root's. Devices take it on
    /// their next run after `publish`. Returns its path.
    @discardableResult
    public func addRoot(_ draft: RootDraft) throws -> String {
        guard FileSystem.isDirectory(root) else { throw PkgError(.fileSystem, "\(root): no such directory") }
        return try withLock(.exclusive) {
            let bytes = try draft.encoded()
            let path = path(RootDocument.path(version: draft.document.version))
            if let newest = try newestRoot() {
                guard draft.document.version == newest.version + 1 else {
                    throw PkgError(.untrustedRoot, "root \(draft.document.version) cannot follow root \(newest.version), "
                                   + "the newest in \(rootsPath); make it from that one (pkgctl root rotate)")
                }
                _ = try newest.successor(bytes, source: path)
            } else {
                guard draft.document.version == 1 else {
                    throw PkgError(.untrustedRoot, "\(rootsPath) holds no root; the first must be version 1")
                }
                _ = try TrustedRoot(selfSigned: bytes, source: path)
            }
            try FileSystem.makeDirectories(rootsPath)
            try FileSystem.writeAtomically(bytes, to: path)
            return path
        }
    }
}
