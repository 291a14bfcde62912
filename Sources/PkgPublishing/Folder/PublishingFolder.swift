import FoundationEssentials
import Glibc
import PkgCore

/// The one owner of a publishing folder: `pack`'s OUT_DIR, or the folder an origin serves
/// (`publish`'s DEST_DIR), as libostree's `OstreeRepo` owns a repository. Every command that
/// reads or changes one goes through it:
///
/// - **The names** are ``PublishedLayout``'s; no other type spells a path inside the folder.
/// - **One lock**, a `flock(2)` on the directory itself (no file added to a folder nginx
///   serves): shared to read the folder as a whole (the source of `publish` and `promote`),
///   exclusive to change it (`pack`, `publish`'s destination, `prune`, `promote`'s destination,
///   `rollout`, `revoke`, `sign`, `timestamp`, `fleet watch`). ``withLock(_:_:)``.
/// - **Debris**: whoever takes the exclusive lock first removes every temporary file an
///   interrupted run left (`.tmp-*`, `.precompress.*`), whatever its process id: the lock says
///   no other pkgctl is writing one.
/// - **One manifest transaction**: ``changeManifest(signer:creating:_:)`` reads, edits,
///   validates, signs, archives and writes, in that order, under the exclusive lock.
/// - **One error** for a folder with no manifest: ``PkgError/Code/noManifest``.
///
/// ```swift
/// let folder = PublishingFolder("out")
/// try folder.pack(source: "dist", name: "demo", version: "1.1.0")   // pkgctl pack
/// try folder.setRollout(name: "demo", percent: 50)                   // pkgctl rollout
/// try folder.publish(to: "/srv/updates")                              // pkgctl publish
/// ```
public struct PublishingFolder: Sendable {
    /// The folder.
    public let root: String
    /// Threads a pack runs its independent work on (the zip beside the objects, one tree delta
    /// a base); the bytes written do not depend on it.
    package var workers = WorkerThreads.available

    /// The publishing folder at `root` (made by the first `pack` or `publish` into it).
    public init(_ root: String) {
        self.root = root
    }

    /// How a command holds the folder's lock.
    public enum Access: Sendable {
        /// Reads the folder as a whole; others may read too, none may change it.
        case shared
        /// Changes the folder; no other pkgctl reads or changes it meanwhile.
        case exclusive
    }

    /// `ROOT/relative`.
    func path(_ relative: String) -> String { root + "/" + relative }

    /// `ROOT/manifest.json`.
    var manifestPath: String { path(PublishedLayout.manifestName) }

    /// `ROOT/timestamp.json`.
    var timestampPath: String { path(PublishedLayout.timestampName) }

    /// Runs `work` holding the folder's lock as `access` says, waiting for another pkgctl. The
    /// folder must exist. An exclusive holder first removes what interrupted runs left.
    public func withLock<Result>(_ access: Access, _ work: () throws -> Result) throws -> Result {
        let lock = try StoreLock(directory: root, shared: access == .shared)
        defer { withExtendedLifetime(lock) {} }
        if access == .exclusive { try removeDebris() }
        return try work()
    }

    /// Runs `work` holding `first`'s lock as `firstAccess` and `second`'s as `secondAccess`, taken
    /// in the order of their real paths, so two commands across the same two folders (a promote
    /// each way) never wait for each other.
    static func withLocks<Result>(_ first: PublishingFolder, _ firstAccess: Access, _ second: PublishingFolder,
                                  _ secondAccess: Access, _ work: () throws -> Result) throws -> Result {
        let firstKey = realPath(first.root), secondKey = realPath(second.root)
        if firstKey == secondKey { return try first.withLock(.exclusive, work) }
        if firstKey < secondKey {
            return try first.withLock(firstAccess) { try second.withLock(secondAccess, work) }
        }
        return try second.withLock(secondAccess) { try first.withLock(firstAccess, work) }
    }

    /// `path` with every symlink and `..` resolved; `path` itself when it cannot be.
    private static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Removes every temporary file and staging folder an interrupted run left: `.tmp-*` at the
    /// top and in each content folder (objects two levels down), and `.precompress.*` at the top.
    /// Called only with the exclusive lock held, so none of them is being written.
    func removeDebris() throws {
        var folders = [root] + PublishedLayout.contentFolders.map(path)
        let objects = path(PublishedLayout.objectsFolder)
        if FileSystem.isDirectory(objects) {
            folders += try FileSystem.contents(of: objects).map { objects + "/" + $0 }
        }
        for folder in folders where FileSystem.isDirectory(folder) {
            for name in try FileSystem.contents(of: folder) where PublishedLayout.isTemporary(name, atTop: folder == root) {
                try FileSystem.removeTree(folder + "/" + name)
            }
        }
    }

    /// The error for a folder with no manifest, the one wording every command uses.
    func missingManifest() -> PkgError {
        PkgError(.noManifest, "no \(PublishedLayout.manifestName) in \(root): pkgctl pack writes it")
    }

    /// The manifest here as the publisher keeps it; a folder without one is refused (``missingManifest()``).
    func readManifest() throws -> PublishedManifest {
        guard let manifest = try PublishedManifest.read(manifestPath) else { throw missingManifest() }
        return manifest
    }

    /// The one transaction that changes the manifest, run with the exclusive lock held: reads
    /// it (with `creating`, a folder without one starts from an empty manifest; otherwise it is
    /// refused), lets `edit` change it, validates every release, orders them, signs with `signer`
    /// (a signed manifest needs one, so it stays signed, and one that shares a key with those
    /// that signed it: ``SignerContinuity``; `now` starts its validity), archives the
    /// bytes as `manifests/<sha256>.json` and renames them over `manifest.json`. A throw before the
    /// rename leaves the manifest as it was.
    func changeManifest<Result>(signer: ManifestSigner?, creating: Bool = false, now: Date = Date(),
                                _ edit: (inout Manifest) throws -> Result) throws -> Result {
        let existing = try PublishedManifest.read(manifestPath)
        guard existing != nil || creating else { throw missingManifest() }
        if existing?.isSigned == true, signer == nil {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) is signed; changing it needs a signing key to keep it signed",
                           remedy: .signingKey)
        }
        if let root = try newestRoot() {
            guard let signer else {
                throw PkgError(.invalidArgument, "\(rootsPath) holds a root of trust, so devices need manifest \(manifestPath) "
                               + "signed by its content keys", remedy: .signingKey)
            }
            try SignerContinuity.check(signer.keys, meet: "content", of: root, document: "manifest \(manifestPath)")
        } else if let existing, let signer {
            try SignerContinuity.check(signer.keys, signedNow: existing.signerIDs, document: "manifest \(manifestPath)")
        }
        var manifest = existing?.manifest ?? Manifest()
        let result = try edit(&manifest)
        for entry in manifest.packages { try entry.validate(source: manifestPath) }
        manifest.sortReleases()
        manifest.schemaVersion = manifest.requiredSchemaVersion
        let bytes = try signer.map { try $0.sign(manifest, now: now) } ?? (try manifest.encoded() + [UInt8(ascii: "\n")])
        try PublishedManifest.write(bytes: bytes, in: self)
        return result
    }
}
