import Crypto
import FoundationEssentials
import Glibc

/// Packs a source tree into `OUT/zips/NAME-VERSION.<sha256>.zip` and lists it in
/// `OUT/manifest.json` (adding the release, or replacing the package's release for the
/// same host runtime range): what an origin serves to `pkgctl update`. Each file is also
/// published as a content-addressed object under `OUT/objects/`, listed by a per-version
/// index under `OUT/index/`, for per-file delta updates. Every file but `manifest.json` and
/// `timestamp.json` is named by its bytes and never rewritten (``PublishedLayout``), and a
/// version the manifest names is never re-packed with other bytes. With a ``ManifestSigner``
/// the manifest is written as a signed envelope with a raised sequence.
public struct Publisher: Sendable {
    /// The directory receiving zips and `manifest.json`.
    public let outputDirectory: String
    /// Threads a pack runs its independent work on (the zip beside the objects, one tree delta
    /// a base); the bytes written do not depend on it.
    package var workers = WorkerThreads.available

    /// A publisher writing into `outputDirectory` (created when missing).
    public init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }

    /// Packs `source` deterministically and records it in the manifest, signed
    /// by `signer` when given; returns the new entry. With `rolloutPercent`
    /// below 100 only that share of devices installs it (a new salt); the
    /// others keep the version the manifest named before. Revocations of the
    /// package carry over.
    ///
    /// Publishing another version with a rollout while the current one is still
    /// rolling out is refused unless `force`: the devices outside the new
    /// rollout would install the unfinished one. Re-publishing the same version
    /// keeps its salt, and lowering its percentage needs `force` too. A version the manifest
    /// names is re-packed only to the same bytes; with `force`, other bytes replace a release
    /// no device can have yet (``refuseRepublishing(name:version:sha256:in:force:)``).
    ///
    /// With `precompress`, text files also go into the bundle as `X.br` and `X.gz`
    /// (``Precompressor``). `spaFallback` names the bundle's document served for
    /// navigations that match no file (``ManifestEntry/spaFallback``). Tree deltas
    /// from the `deltaFrom` newest earlier versions published here are written too
    /// (``treeDeltas(to:name:version:from:)``). `immutable` globs name files served as
    /// never changing (``ManifestEntry/immutable``), `headers` response headers for some files
    /// (``ManifestEntry/headers``); a glob of either that matches no file is refused. A `critical`
    /// release activates at once on devices that keep activation windows (``ManifestEntry/critical``).
    /// With `runtime`, the release is for hosts in that range (``ManifestEntry/runtime``): it
    /// replaces only the package's release for an equal range, and the others stay listed.
    /// `prefetch` lists URLs devices fetch into their overlay after activating the release
    /// (``ManifestEntry/prefetch``).
    /// `siblingWriters` add files beside the bundle's own (image variants), as `precompress` does.
    @discardableResult
    public func publish(source: String, name: String, version: String, routes: [String] = [],
                        rolloutPercent: Double? = nil, force: Bool = false, precompress: Bool = false,
                        spaFallback: String? = nil, immutable: [String] = [], headers: [PackageHeader] = [],
                        deltaFrom: Int = 3, critical: Bool = false, runtime: RuntimeRange? = nil,
                        prefetch: [String] = [], siblingWriters: [any BundleSiblingWriter] = [],
                        signer: ManifestSigner? = nil) throws -> ManifestEntry {
        // What the arguments and the source alone decide is refused before OUT_DIR is made,
        // so a refusal leaves no folder (nor lock file) behind.
        var placeholder = ManifestEntry(name: name, version: version, url: "\(name)-\(version).zip",
                                        sha256: String(repeating: "0", count: 64), size: 0, routes: routes)
        placeholder.spaFallback = spaFallback
        placeholder.immutable = immutable
        placeholder.headers = headers
        placeholder.prefetch = prefetch
        try placeholder.validate(source: manifestPath)
        let files = try BundlePacker.files(in: source)
        try ManifestEntry.checkSpaFallback(spaFallback, isAFileOf: source) { name in files.contains { $0.name == name } }
        for glob in immutable where !files.contains(where: { fnmatch(glob, $0.name, 0) == 0 }) {
            throw PkgError(.invalidArgument, "immutable '\(glob.escapedForMessage)' matches no file of \(source)")
        }
        for header in headers where !files.contains(where: { fnmatch(header.files, $0.name, 0) == 0 }) {
            throw PkgError(.invalidArgument, "header for '\(header.files.escapedForMessage)' matches no file of \(source)")
        }

        try FileSystem.makeDirectories(outputDirectory)
        let lock = try lockOutput()
        defer { withExtendedLifetime(lock) {} }
        var manifest = try readManifest(signer: signer)
        let slot = ReleaseSlot(name: name, runtime: runtime)
        let previous = manifest.packages.first { ReleaseSlot($0) == slot }
        let revokedBefore = manifest.revocations(of: name)
        try checkNewRelease(name: name, version: version, rolloutPercent: rolloutPercent, replacing: previous,
                            revoked: revokedBefore, force: force)

        func publish(_ files: [BundleFile]) throws -> ManifestEntry {
            // The zip and the per-file work (hashes, objects, tree deltas) are independent
            // until the index: one thread each. A version published before may be refused
            // once its zip is hashed, leaving nothing written: then the zip goes first.
            let known = manifest
            let republishing = mayRefuseRepublishing(name: name, version: version, in: known)
            let ((fileName, digest, compressedSizes), (files, deltas)) = try WorkerThreads.both(
                workers: republishing ? 1 : workers,
                {
                    let (fileName, digest) = try packZip(files, name: name, version: version) { sha256 in
                        try refuseRepublishing(name: name, version: version, sha256: sha256, in: known, force: force)
                    }
                    let zip = try ZipArchive(path: outputDirectory + "/" + fileName, label: "\(name) \(version)")
                    return (fileName, digest, zip.compressedSizes())
                },
                {
                    let files = try publishObjects(files)
                    return (files, try treeDeltas(to: PublishedFileIndex(files: files), name: name, version: version,
                                                  from: deltaFrom))
                })
            var entry = ManifestEntry(name: name, version: version, url: fileName,
                                      sha256: digest.sha256, size: digest.size, routes: routes,
                                      revoked: revokedBefore)
            entry.runtime = runtime?.text
            entry.spaFallback = spaFallback
            entry.immutable = immutable
            entry.headers = headers
            entry.critical = critical
            entry.prefetch = prefetch
            entry.index = try publishIndex(of: files, compressedSizes: compressedSizes, name: name, version: version)
            entry.deltas = try publishDeltas(deltas)
            entry.rollout = rollout(of: entry, percent: rolloutPercent, replacing: previous)
            try replace(entry, in: &manifest, signer: signer)
            return entry
        }
        guard precompress || !siblingWriters.isEmpty else { return try publish(files) }
        // The siblings live only until they are packed and published.
        return try StagingDirectory.run(in: outputDirectory, prefix: ".precompress") { staging in
            var all = files
            if precompress { all += try Precompressor.encode(files, into: staging.path, workers: workers) }
            for writer in siblingWriters { all += try writer.siblings(of: files, into: staging.path) }
            return try publish(all)
        }
    }

    /// Writes every file of the bundle as an object (once: objects are named by content);
    /// returns the index's files, sorted by path, without their deflated sizes.
    private func publishObjects(_ bundleFiles: [BundleFile]) throws -> [PublishedFileIndex.File] {
        var files: [PublishedFileIndex.File] = []
        for bundleFile in bundleFiles.sorted(by: { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }) {
            let file = bundleFile.path, path = bundleFile.name
            var info = stat()
            guard stat(file, &info) == 0 else { throw fileSystemError("stat", file) }
            // One read: the object's name is the hash of the very bytes written.
            guard let bytes = try FileSystem.read(file) else { throw fileSystemError("read", file) }
            let sha256 = SHA256.hash(data: bytes).hexString
            try writeContentNamed(bytes, to: PublishedFileIndex.objectPath(sha256))
            files.append(.init(path: path, sha256: sha256, size: UInt64(bytes.count),
                               mode: info.st_mode & 0o111 != 0 ? 0o755 : 0o644))  // informational: installs use 0644
        }
        return files
    }

    /// Writes the version's index of `files`, with each file's deflated size from the zip;
    /// returns its reference.
    private func publishIndex(of files: [PublishedFileIndex.File], compressedSizes: [String: UInt64], name: String,
                              version: String) throws -> IndexReference {
        let files = files.map { file in
            var file = file
            file.compressedSize = compressedSizes[file.path].map { min($0, file.size) }
            return file
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes = Array(try encoder.encode(PublishedFileIndex(files: files)))
        let sha256 = SHA256.hash(data: bytes).hexString
        let relative = PublishedLayout.index(name: name, version: version, sha256: sha256)
        try writeContentNamed(bytes, to: relative)
        return IndexReference(url: relative, sha256: sha256, size: UInt64(bytes.count))
    }

    var manifestPath: String { outputDirectory + "/manifest.json" }

    /// `OUT_DIR/.pkgctl-lock`: held while the manifest is read, changed and written, so
    /// `pack`, `rollout`, `revoke` and `fleet watch` never lose each other's change.
    var lockPath: String { outputDirectory + "/.pkgctl-lock" }

    /// Takes ``lockPath``, waiting for another publisher; nil when there is no output folder
    /// yet (nothing to change, and the error that follows says so).
    func lockOutput() throws -> StoreLock? {
        FileSystem.isDirectory(outputDirectory) ? try StoreLock(path: lockPath) : nil
    }

    /// The manifest to change; a signed one needs a signer, so it stays signed.
    func readManifest(signer: ManifestSigner?) throws -> Manifest {
        let existing = try PublishedManifest.read(manifestPath)
        if existing?.isSigned == true, signer == nil {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) is signed; changing it needs a signing key to keep it signed",
                           remedy: .signingKey)
        }
        return existing?.manifest ?? Manifest()
    }

    func replace(_ entry: ManifestEntry, in manifest: inout Manifest, signer: ManifestSigner?) throws {
        try replace([entry], in: &manifest, signer: signer)
    }

    /// Puts `entries` in the manifest in place of the releases of their slots, and writes it.
    func replace(_ entries: [ManifestEntry], in manifest: inout Manifest, signer: ManifestSigner?) throws {
        for entry in entries { try entry.validate(source: manifestPath) }
        let slots = Set(entries.map(ReleaseSlot.init))
        manifest.packages.removeAll { slots.contains(ReleaseSlot($0)) }
        manifest.packages += entries
        // By name, then newest release first: a stable order, so re-signing the same releases changes nothing.
        manifest.packages.sort { a, b in
            if a.name != b.name { return a.name < b.name }
            if PackageVersion(a.version) != PackageVersion(b.version) { return PackageVersion(b.version) < PackageVersion(a.version) }
            return (a.runtime ?? "") < (b.runtime ?? "")
        }
        manifest.schemaVersion = manifest.requiredSchemaVersion
        try PublishedManifest.write(manifest, to: manifestPath, signer: signer)
    }

}
