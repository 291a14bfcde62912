import PkgCore

extension PublishingFolder {
    /// Publishes `version` of `name` here exactly as the publishing folder `source` (another
    /// channel: staging) publishes it, never rebuilt: its zip, index and every object are copied
    /// byte for byte (checked against the source manifest's hashes), under content names. The
    /// entry keeps the source's fields (routes, headers, runtime, …) and gets this folder's own
    /// revocations, tree deltas from this folder's `deltaFrom` newest earlier versions and from the
    /// release it replaces, and, with
    /// `rolloutPercent`, a rollout whose `previous` is the release this folder named before. The
    /// manifest is written signed by `signer` (this channel's keys). `runtime` picks the release
    /// when the source lists the version for several runtimes. Returns the new entry.
    @discardableResult
    public func promote(name: String, version: String, from source: String, runtime: RuntimeRange? = nil,
                        rolloutPercent: Double? = nil, force: Bool = false, allowDowngrade: Bool = false,
                        deltaFrom: Int = 3, signer: ManifestSigner? = nil) throws -> ManifestEntry {
        let origin = PublishingFolder(source)
        guard FileSystem.exists(origin.manifestPath) else { throw origin.missingManifest() }
        let options = PackOptions(rolloutPercent: rolloutPercent, force: force, deltaFrom: deltaFrom,
                                  allowDowngrade: allowDowngrade)
        try FileSystem.makeDirectories(root)
        return try Self.withLocks(origin, .shared, self, .exclusive) {
            let release = try origin.namedRelease(name: name, version: version, runtime: runtime)
            return try changeManifest(signer: signer, creating: true) { manifest in
                let previous = manifest.packages.first { ReleaseSlot($0) == ReleaseSlot(release.entry(name: name)) }
                let revoked = manifest.revocations(of: name)
                try refuseRepublishing(name: name, version: version, sha256: release.sha256, in: manifest, force: force)
                try checkNewRelease(name: name, version: version, options: options, replacing: previous, revoked: revoked,
                                    in: manifest)
                var (entry, index) = try copyRelease(release, name: name, version: version, from: origin)
                entry.revoked = revoked
                entry.rollout = rollout(of: entry, percent: rolloutPercent, replacing: previous)
                entry.deltas = try index.map {
                    try writeDeltas(to: $0, name: name, version: version, from: deltaFrom, replacing: previous)
                } ?? []
                manifest.replaceReleases(with: [entry])
                return entry
            }
        }
    }

    /// The release of `version` of `name` this folder's manifest names, for `runtime` when given;
    /// refused when the manifest names none, or its zip or index at a URL with a scheme.
    private func namedRelease(name: String, version: String, runtime: RuntimeRange?) throws -> Release {
        guard let bytes = try FileSystem.read(manifestPath) else { throw missingManifest() }
        let release = try Self.release(name: name, version: version, runtime: runtime, in: bytes, source: manifestPath)
        let local = Set(try ManifestReferences.files(of: release, name: name, in: root, source: manifestPath).0.map(\.0.path))
        guard local.contains(release.url), release.index.map({ local.contains($0.url) }) ?? true else {
            throw PkgError(.invalidArgument, "\(manifestPath): \(name) \(version): its zip or index is at a URL with a "
                           + "scheme; promote copies the files of \(root) only")
        }
        return release
    }

    /// Copies the zip, index and objects of `release` from `origin` byte for byte (each streamed
    /// and checked against the hash that names it) under content names here, each flushed and
    /// renamed into place; files already here are kept. The source's deltas start from the
    /// source's versions and are not copied. Returns the release's entry with this folder's URLs,
    /// and its index.
    private func copyRelease(_ release: Release, name: String, version: String,
                             from origin: PublishingFolder) throws -> (ManifestEntry, PublishedFileIndex?) {
        var entry = release.entry(name: name)
        var index: PublishedFileIndex?
        let (files, _) = try ManifestReferences.files(of: release, name: name, in: origin.root, source: origin.manifestPath)
        for (file, kind) in files where kind != .delta {
            let relative: String
            switch kind {
            case .zip:
                relative = PublishedLayout.zip(name: name, version: version, sha256: file.sha256)
                entry.url = relative
            case .index:
                relative = PublishedLayout.index(name: name, version: version, sha256: file.sha256)
                entry.index = IndexReference(url: relative, sha256: file.sha256, size: file.size ?? 0)
                index = try PublishedFileIndex.parse(try file.read(in: origin.root, namedBy: origin.manifestPath),
                                                     label: "\(name) \(version)", limits: ExtractionLimits())
            case .object, .delta:
                relative = file.path
            }
            try copyContentNamed(file, from: origin, to: relative)
        }
        return (entry, index)
    }

    /// The release of `version` of `name` that the manifest `bytes` names (as a release or a
    /// rollout's `previous`), for `runtime` when given; refused when there is none or several.
    private static func release(name: String, version: String, runtime: RuntimeRange?, in bytes: [UInt8],
                                source: String) throws -> Release {
        let manifest = try TrustPolicy().open(bytes, source: source, now: .distantPast).manifest
        let named = manifest.packages.filter { $0.name == name }
            .flatMap { [Release($0)] + ($0.rollout?.previous.map { [$0] } ?? []) }
            .filter { $0.version == version && (runtime == nil || $0.entry(name: name).runtimeRange == runtime) }
        let distinct = Set(named.map(\.sha256))
        guard let release = named.first else {
            throw PkgError(.invalidArgument, "\(source) names no release \(name) \(version.escapedForMessage)"
                           + (runtime.map { " for runtime '\($0.text)'" } ?? ""))
        }
        guard distinct.count == 1 else {
            throw PkgError(.invalidArgument, "\(source) names \(name) \(version) for several runtimes; name one with --runtime")
        }
        return release
    }
}
