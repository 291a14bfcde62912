import PkgCrypto
import FoundationEssentials
import Glibc
import PkgCore

extension PublishingFolder {
    /// Packs `source` deterministically into `zips/NAME-VERSION.<sha256>.zip`, each of its files
    /// as an object under `objects/` listed by an index under `index/`, tree deltas from earlier
    /// versions under `deltas/`, and lists the release in `manifest.json` (adding it, or replacing
    /// the package's release for the same runtime range), signed by `signer` when given: what
    /// `pkgctl pack` does. Returns the new entry.
    ///
    /// Refused, leaving the folder as it was: a version the manifest (or a manifest archived here)
    /// names with other bytes (``refuseRepublishing(name:version:sha256:in:force:)``); one that sorts
    /// below the slot's release now, unless ``PackOptions/allowDowngrade``; and what
    /// ``checkNewRelease(name:version:options:replacing:revoked:in:)`` refuses. Revocations of the
    /// package carry over. Tree deltas come from the ``PackOptions/deltaFrom`` newest earlier
    /// versions and from the release this one replaces. Holds the folder's exclusive lock.
    @discardableResult
    public func pack(source: String, name: String, version: String, options: PackOptions = PackOptions(),
                     signer: ManifestSigner? = nil) throws -> ManifestEntry {
        // What the arguments and the source alone decide is refused before the folder is made,
        // so a refusal leaves no folder behind.
        let files = try packableFiles(of: source, name: name, version: version, options: options)
        try FileSystem.makeDirectories(root)
        return try withLock(.exclusive) {
            try changeManifest(signer: signer, creating: true) { manifest in
                let previous = manifest.packages.first { ReleaseSlot($0) == ReleaseSlot(name: name, runtime: options.runtime) }
                let revoked = manifest.revocations(of: name)
                try checkNewRelease(name: name, version: version, options: options, replacing: previous, revoked: revoked,
                                    in: manifest)
                var entry = try withSiblings(of: files, options: options) { files in
                    try packRelease(files, name: name, version: version, options: options, replacing: previous,
                                    known: manifest)
                }
                entry.revoked = revoked
                entry.rollout = rollout(of: entry, percent: options.rolloutPercent, replacing: previous)
                manifest.replaceReleases(with: [entry])
                return entry
            }
        }
    }

    /// The files of `source`, once what the options say of them holds: the entry's fields
    /// validate, the SPA fallback is a file, and each `immutable` and `headers` glob matches one.
    private func packableFiles(of source: String, name: String, version: String,
                               options: PackOptions) throws -> [BundleFile] {
        var placeholder = ManifestEntry(name: name, version: version, url: "\(name)-\(version).zip",
                                        sha256: String(repeating: "0", count: 64), size: 0, routes: options.routes)
        placeholder.spaFallback = options.spaFallback
        placeholder.immutable = options.immutable
        placeholder.headers = options.headers
        placeholder.prefetch = options.prefetch
        try placeholder.validate(source: manifestPath)
        let files = try BundlePacker.files(in: source)
        try ManifestEntry.checkSpaFallback(options.spaFallback, isAFileOf: source) { name in files.contains { $0.name == name } }
        for glob in options.immutable where !files.contains(where: { fnmatch(glob, $0.name, 0) == 0 }) {
            throw PkgError(.invalidArgument, "immutable '\(glob.escapedForMessage)' matches no file of \(source)")
        }
        for header in options.headers where !files.contains(where: { fnmatch(header.files, $0.name, 0) == 0 }) {
            throw PkgError(.invalidArgument, "header for '\(header.files.escapedForMessage)' matches no file of \(source)")
        }
        return files
    }

    /// Runs `pack` on `files` and the siblings the options add (precompressed copies, image
    /// variants), which live in a staging folder only until they are packed.
    private func withSiblings(of files: [BundleFile], options: PackOptions,
                              _ pack: ([BundleFile]) throws -> ManifestEntry) throws -> ManifestEntry {
        guard options.precompress || !options.siblingWriters.isEmpty else { return try pack(files) }
        return try StagingDirectory.run(in: root, prefix: PublishedLayout.precompressPrefix) { staging in
            var all = files
            if options.precompress { all += try Precompressor.encode(files, into: staging.path, workers: workers) }
            for writer in options.siblingWriters { all += try writer.siblings(of: files, into: staging.path) }
            return try pack(all)
        }
    }

    /// Writes the zip, objects, index and tree deltas of `files` and returns the release's entry
    /// (without rollout or revocations). The zip and the per-file work (hashes, objects, tree
    /// deltas) are independent until the index: one thread each. A version that may be refused
    /// once its zip is hashed goes zip first, so a refusal leaves nothing written.
    private func packRelease(_ files: [BundleFile], name: String, version: String, options: PackOptions,
                             replacing previous: ManifestEntry?, known: Manifest) throws -> ManifestEntry {
        let republishing = try mayRefuseRepublishing(name: name, version: version, in: known)
        let ((fileName, digest, compressedSizes), (indexFiles, deltas)) = try WorkerThreads.both(
            workers: republishing ? 1 : workers,
            {
                let (fileName, digest) = try packZip(files, name: name, version: version) { sha256 in
                    try refuseRepublishing(name: name, version: version, sha256: sha256, in: known, force: options.force)
                }
                let zip = try ZipArchive(path: path(fileName), label: "\(name) \(version)")
                return (fileName, digest, zip.compressedSizes())
            },
            {
                let indexFiles = try writeObjects(files)
                return (indexFiles, try treeDeltas(to: PublishedFileIndex(files: indexFiles), name: name, version: version,
                                                   from: options.deltaFrom, replacing: previous))
            })
        var entry = ManifestEntry(name: name, version: version, url: fileName, sha256: digest.sha256, size: digest.size,
                                  routes: options.routes)
        entry.runtime = options.runtime?.text
        entry.spaFallback = options.spaFallback
        entry.immutable = options.immutable
        entry.headers = options.headers
        entry.critical = options.critical
        entry.prefetch = options.prefetch
        entry.index = try writeIndex(of: indexFiles, compressedSizes: compressedSizes, name: name, version: version)
        entry.deltas = try writeDeltas(deltas)
        return entry
    }

    /// Writes every file of the bundle as an object (once: objects are named by content);
    /// returns the index's files, sorted by path, without their deflated sizes.
    private func writeObjects(_ bundleFiles: [BundleFile]) throws -> [PublishedFileIndex.File] {
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
    private func writeIndex(of files: [PublishedFileIndex.File], compressedSizes: [String: UInt64], name: String,
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
}
