import FoundationEssentials
import Glibc
import PkgCore

/// Removes from a publishing folder (`pack`'s OUT_DIR, or where `publish` copied it) the files
/// old releases left behind, keeping every file a device may still be sent for:
///
/// - what the current `manifest.json` names, whatever the settings;
/// - what any manifest that was current within ``grace`` names (a CDN or a device still
///   holding it): each manifest is archived as `manifests/<sha256>.json`, and one stops being
///   current when the next is written (the next archive's modification time);
/// - the zip, index, objects and deltas of each package's ``keep`` newest versions any
///   archived manifest named (devices still running them, and versions to go back to);
/// - any file younger than ``grace`` (a `pack` or `publish` still under way).
///
/// The rest of `zips/`, `index/`, `deltas/`, `objects/`, `manifests/` and `snapshots/` is removed, and every
/// temporary file an interrupted run left (``PublishingFolder/withLock(_:_:)`` removes them
/// first, holding the folder's exclusive lock). What ``PublishingFolder/prune(keep:grace:dryRun:now:)`` runs.
public struct OriginPruner: Sendable {
    /// The folder to prune.
    public let directory: String
    /// How many of each package's newest versions keep their files.
    public var keep: Int
    /// Seconds a superseded manifest's files stay: longer than a CDN may serve it (the shipped
    /// origin configuration's `max-age=10`, or `stale-if-error` for a day while the origin is
    /// down) plus the run a device may still be in (`update --deadline`, 1 h by default).
    public var grace: Double

    /// The default ``keep``: as many versions as `pack --delta-from` writes deltas from.
    public static let defaultKeep = 3
    /// The default ``grace``, 25 h: a day of `stale-if-error` and a device's default deadline of 1 h.
    public static let defaultGrace: Double = 25 * 3600

    /// A pruner of `directory`.
    public init(directory: String, keep: Int = defaultKeep, grace: Double = defaultGrace) {
        self.directory = directory
        self.keep = keep
        self.grace = grace
    }

    /// Prunes; with `dryRun`, only lists what it would remove, under the shared lock, changing
    /// nothing. Otherwise holds the folder's exclusive lock throughout, so no `pack` or `publish`
    /// adds a file meanwhile that it would take for old.
    public func prune(dryRun: Bool = false, now: Date = Date()) throws -> PruneSummary {
        let folder = PublishingFolder(directory)
        guard FileSystem.isDirectory(directory) else { throw folder.missingManifest() }
        return try folder.withLock(dryRun ? .shared : .exclusive) { try pruneHoldingLock(folder, dryRun: dryRun, now: now) }
    }

    private func pruneHoldingLock(_ folder: PublishingFolder, dryRun: Bool, now: Date) throws -> PruneSummary {
        guard let current = try FileSystem.read(folder.manifestPath) else { throw folder.missingManifest() }
        let named = try ManifestReferences(manifest: current, in: directory)
        let protected = Set(named.files.map(\.path))
        var live = protected
        var summary = PruneSummary(manifests: 1)
        var horizon = now.timeIntervalSince1970 - grace

        // Archived manifests, oldest first: each was current until the next one was written.
        let archives = try files(in: "manifests").compactMap { path -> (path: String, stamp: Double)? in
            PublishedLayout.namedDigest(of: path) == nil ? nil : (path, modificationTime(path))
        }.sorted { $0.stamp < $1.stamp }
        // Manifests written before the oldest archive (by an earlier pkgctl, or by hand) are not
        // known, and one of them was current until it: until the archives reach back past the grace
        // period, nothing is removed.
        let oldest = archives.first?.stamp ?? now.timeIntervalSince1970
        if oldest >= horizon {
            summary.historyStarts = Date(timeIntervalSince1970: oldest)
            horizon = -.infinity
        }
        var releases: [ReleaseKey: (files: [PublishedFile], archive: String?)] = [:]
        for release in named.releases { releases[ReleaseKey(release)] = (release.files, nil) }
        for (position, archive) in archives.enumerated().reversed() where archive.path != named.archive.path {
            let path = directory + "/" + archive.path
            guard let bytes = try FileSystem.read(path) else { continue }
            let references: ManifestReferences
            do {
                references = try ManifestReferences(manifest: bytes, in: directory, source: path, skippingMissingIndexes: true)
            } catch let error as PkgError {
                throw PkgError(error.code, "\(error.message); nothing removed (remove the archive if it is not a manifest "
                               + "this folder served)")
            }
            let supersededAt = position + 1 < archives.count ? archives[position + 1].stamp : now.timeIntervalSince1970
            if supersededAt >= horizon {
                live.formUnion(references.files.map(\.path))
                summary.manifests += 1
            }
            for release in references.releases where releases[ReleaseKey(release)] == nil {
                releases[ReleaseKey(release)] = (release.files, archive.path)
            }
        }
        for (_, versions) in Dictionary(grouping: releases, by: { $0.key.slot }) {
            let newest = versions.sorted { PackageVersion($1.key.version) < PackageVersion($0.key.version) }.prefix(keep)
            for (_, release) in newest {
                live.formUnion(release.files.map(\.path))
                if let archive = release.archive { live.insert(archive) }
            }
        }

        for path in try candidates() {
            var info = stat()
            guard lstat(directory + "/" + path, &info) == 0 else { continue }
            let stamp = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if live.contains(path) || stamp >= horizon || info.st_mode & S_IFMT != S_IFREG {
                summary.kept += 1
                summary.keptBytes += UInt64(info.st_size)
                continue
            }
            precondition(!protected.contains(path), "prune never removes a file the current manifest names")
            if !dryRun, unlink(directory + "/" + path) != 0, errno != ENOENT { throw fileSystemError("remove", directory + "/" + path) }
            summary.removed.append(path)
            summary.removedBytes += UInt64(info.st_size)
        }
        return summary
    }

    /// Every file prune may remove: the content-named files of the content folders (objects two
    /// levels down), and the temporary files a killed `pack` or `publish` left there or at the top.
    /// Nothing else: version-named files of an earlier pkgctl, and a site's own files beside them.
    private func candidates() throws -> [String] {
        var paths = try files(in: "")
        for folder in PublishedLayout.contentFolders where folder != "objects" { paths += try files(in: folder) }
        for fanout in try files(in: "objects") where FileSystem.isDirectory(directory + "/" + fanout) {
            paths += try files(in: fanout)
        }
        return paths.filter { path in
            PublishedLayout.namedDigest(of: path) != nil || PathName.lastComponent(path).hasPrefix(FileSystem.temporaryPrefix)
        }.sorted()
    }

    /// The entries of `folder` (relative; "" for the top), as relative paths; none when it is missing.
    private func files(in folder: String) throws -> [String] {
        let path = folder.isEmpty ? directory : directory + "/" + folder
        guard FileSystem.isDirectory(path) else { return [] }
        return try FileSystem.contents(of: path).map { folder.isEmpty ? $0 : folder + "/" + $0 }
    }

    private func modificationTime(_ path: String) -> Double {
        Double(FileSystem.modificationStamp(directory + "/" + path)) / 1e9
    }
}
