import Glibc
import PkgCore

extension PublishingFolder {
    /// Packs `files` into `OUT/zips/NAME-VERSION.<sha256>.zip` and returns its relative name and
    /// digest. The zip is written under a temporary name first; `check` sees its SHA-256 before it
    /// takes its name, and a refusal leaves nothing behind. A zip already there under that name
    /// has the same bytes and is kept as it is.
    func packZip(_ files: [BundleFile], name: String, version: String,
                 check: (String) throws -> Void) throws -> (String, FileIndex.Entry) {
        let folder = path("zips")
        try FileSystem.makeDirectories(folder)
        let temporary = FileSystem.temporaryName(beside: folder + "/\(name)-\(version).zip")
        do {
            try BundlePacker.pack(files, to: temporary)
            let digest = try FileHasher.hash(file: temporary)
            try check(digest.sha256)
            let relative = PublishedLayout.zip(name: name, version: version, sha256: digest.sha256)
            try moveContentNamed(temporary, to: relative)
            return (relative, digest)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Refuses to publish `version` of `name` as a zip hashing to `sha256` when the manifest
    /// already names that version (as a release or a rollout's `previous`) with other bytes, or,
    /// when it names it not at all, when a manifest archived here named it with other bytes
    /// (``publishedBefore(name:version:)``): a device may run it, and a version never changes on a
    /// device. A zip no manifest ever named (an interrupted `pack`) blocks nothing. With `force`,
    /// a release the manifest names that no device can have yet (rolled out to 0 % with no pinned
    /// device) may be replaced.
    func refuseRepublishing(name: String, version: String, sha256: String, in manifest: Manifest, force: Bool) throws {
        let named = namedReleases(name: name, version: version, in: manifest)
        for (entry, release) in named where release.sha256 != sha256 {
            let unreleased = release == Release(entry) && entry.rollout?.percent == 0 && entry.rollout?.devices == nil
                && !everReleased(name: name, sha256: release.sha256)
            if force, unreleased { continue }
            let why = force ? " (force replaces only a release no device can have yet: rolled out to 0 % "
                + "with no pinned device)" : ""
            throw PkgError(.invalidArgument, "\(name) \(version) is already published with other bytes (zip "
                           + "\(release.sha256.prefix(12))…) and devices may run it\(why); publish the change as a "
                           + "new version", remedy: unreleased && !force ? .force : nil)
        }
        guard named.isEmpty, let earlier = try publishedBefore(name: name, version: version)
            .first(where: { $0.sha256 != sha256 }) else { return }
        throw PkgError(.invalidArgument, "\(name) \(version) was published before with other bytes (zip "
                       + "\(earlier.sha256.prefix(12))…, named by \(earlier.namer)) and devices may run it; publish the "
                       + "change as a new version")
    }

    /// Whether ``refuseRepublishing(name:version:sha256:in:force:)`` may refuse some zip of
    /// `version` of `name`: the manifest names that version, or one published before did.
    func mayRefuseRepublishing(name: String, version: String, in manifest: Manifest) throws -> Bool {
        try !namedReleases(name: name, version: version, in: manifest).isEmpty
            || !publishedBefore(name: name, version: version).isEmpty
    }

    /// The releases of `version` of `name` that `manifest` names, as a release or a rollout's
    /// `previous`, each with its entry.
    func namedReleases(name: String, version: String, in manifest: Manifest) -> [(ManifestEntry, Release)] {
        manifest.packages.filter { $0.name == name }.flatMap { entry in
            ([Release(entry)] + (entry.rollout?.previous.map { [$0] } ?? []))
                .filter { PackageVersion($0.version) == PackageVersion(version) }.map { (entry, $0) }
        }
    }

    /// The zips of `version` of `name` published here before, each with who named it: those a
    /// manifest archived in `manifests/` named. A folder with no archive (an earlier pkgctl wrote
    /// none) counts each zip of that version in `zips/` instead, as it cannot tell.
    private func publishedBefore(name: String, version: String) throws -> [(sha256: String, namer: String)] {
        guard FileSystem.isDirectory(path("manifests")) else {
            let prefix = "\(name)-\(version).", folder = path("zips")
            guard FileSystem.isDirectory(folder) else { return [] }
            return try FileSystem.contents(of: folder).compactMap { file in
                guard file.hasPrefix(prefix), file.dropFirst(prefix.count).count == 68,
                      let digest = PublishedLayout.namedDigest(of: "zips/" + file) else { return nil }
                return (digest, folder + "/" + file)
            }
        }
        return archivedManifests().flatMap { archive in
            namedReleases(name: name, version: version, in: archive.manifest).map { ($0.1.sha256, archive.path) }
        }
    }

    /// Whether a manifest archived here ever gave `name`'s release with zip `sha256` to a device:
    /// listed without a rollout, above 0 %, or with pinned devices (a release lowered to 0 %
    /// with force is still on the devices that took it).
    private func everReleased(name: String, sha256: String) -> Bool {
        archivedManifests().contains { archive in
            archive.manifest.packages.contains { entry in
                entry.name == name && entry.sha256 == sha256
                    && (entry.rollout.map { $0.percent > 0 || $0.devices != nil } ?? true)
            }
        }
    }

    /// Every manifest archived in `manifests/` that reads, with its path.
    func archivedManifests() -> [(path: String, manifest: Manifest)] {
        let folder = path("manifests")
        let archives = (try? FileSystem.contents(of: folder)) ?? []
        return archives.compactMap { file in
            guard PublishedLayout.namedDigest(of: "manifests/" + file) != nil,
                  let manifest = try? PublishedManifest.read(folder + "/" + file)?.manifest else { return nil }
            return (folder + "/" + file, manifest)
        }
    }

    /// Writes `bytes` as the content-named file `relative` (under `OUT`), unless it is there already.
    func writeContentNamed(_ bytes: [UInt8], to relative: String) throws {
        let path = path(relative)
        guard !FileSystem.exists(path) else { return }
        try FileSystem.makeDirectories(PathName.parent(path))
        try FileSystem.writeAtomically(bytes, to: path)
    }

    /// Copies `file` of `origin` (streamed, checked against its hash) as the content-named
    /// `relative` here, unless it is there already.
    func copyContentNamed(_ file: PublishedFile, from origin: PublishingFolder, to relative: String) throws {
        let path = path(relative)
        guard !FileSystem.exists(path) else { return }
        try FileSystem.makeDirectories(PathName.parent(path))
        let temporary = FileSystem.temporaryName(beside: path)
        _ = try file.copy(in: origin.root, to: temporary, namedBy: origin.manifestPath, flush: false)
        try moveContentNamed(temporary, to: relative)
    }

    /// Renames the finished file `temporary` to the content-named `relative` (under `OUT`), or
    /// removes it when a file of that name, and so of those bytes, is there already.
    private func moveContentNamed(_ temporary: String, to relative: String) throws {
        let path = path(relative)
        if FileSystem.exists(path) {
            unlink(temporary)
            return
        }
        let fd = open(temporary, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", temporary) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw fileSystemError("fsync", temporary) }
        if rename(temporary, path) != 0 { throw fileSystemError("rename", temporary) }
        try FileSystem.syncDirectory(PathName.parent(path))
    }
}
