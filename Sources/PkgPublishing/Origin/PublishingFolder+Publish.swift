import Glibc
import PkgCore

extension PublishingFolder {
    /// Copies what this folder's manifest (and timestamp) can name into `destination`, the folder
    /// an origin serves (its last folder made when missing, as `cp` and `rsync` do; a missing parent
    /// is refused: a typo would publish where the origin serves nothing), content-named files first and `manifest.json`
    /// last (``OriginPublisher``); with `dryRun`, only finds what it would copy. With `verify`,
    /// files already there are re-hashed instead of trusted by name and size. Holds this folder's
    /// shared lock and the destination's exclusive one throughout. `progress` hears of every copied file.
    ///
    /// ```swift
    /// let summary = try PublishingFolder("out").publish(to: "/srv/updates")
    /// print(summary.copied, summary.skipped)
    /// ```
    public func publish(to destination: String, dryRun: Bool = false, verify: Bool = false,
                        progress: ((PublishProgress) -> Void)? = nil) throws -> PublishSummary {
        guard FileSystem.exists(manifestPath) else { throw missingManifest() }
        let target = PublishingFolder(destination)
        let publisher = OriginPublisher(source: self, destination: target, verify: verify)
        if dryRun { return try withLock(.shared) { try publisher.publish(dryRun: true, progress: progress) } }
        // A destination this run created and then refused to fill is removed (rmdir: only while empty).
        let created = !FileSystem.isDirectory(destination)
        if created {
            let parent = PathName.parent(destination)
            guard FileSystem.isDirectory(parent) else {
                throw PkgError(.invalidArgument, "\(parent) does not exist: publish makes only the last folder of "
                               + "\(destination), as cp and rsync do; check the path, or make its parent first")
            }
            if mkdir(destination, 0o755) != 0, errno != EEXIST { throw fileSystemError("make", destination) }
        }
        guard access(destination, W_OK) == 0 else { throw fileSystemError("write into", destination) }
        do {
            return try Self.withLocks(self, .shared, target, .exclusive) {
                try publisher.publish(dryRun: false, progress: progress)
            }
        } catch {
            if created { rmdir(destination) }
            throw error
        }
    }
}
