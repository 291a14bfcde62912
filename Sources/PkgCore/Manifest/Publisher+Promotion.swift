extension Publisher {
    /// Publishes `version` of `name` here exactly as the publishing folder `source` (another
    /// channel: staging) publishes it, never rebuilt: its zip, index and every object are copied
    /// byte for byte (checked against the source manifest's hashes), under content names. The
    /// entry keeps the source's fields (routes, headers, runtime, …) and gets this folder's own
    /// revocations, tree deltas from this folder's `deltaFrom` newest earlier versions, and, with
    /// `rolloutPercent`, a rollout whose `previous` is the release this folder named before. The
    /// manifest is written signed by `signer` (this channel's keys). `runtime` picks the release
    /// when the source lists the version for several runtimes. Returns the new entry.
    @discardableResult
    public func promote(name: String, version: String, from source: String, runtime: RuntimeRange? = nil,
                        rolloutPercent: Double? = nil, force: Bool = false, deltaFrom: Int = 3,
                        signer: ManifestSigner? = nil) throws -> ManifestEntry {
        let sourceManifest = source + "/" + PublishedLayout.manifestName
        guard let bytes = try FileSystem.read(sourceManifest) else {
            throw PkgError(.invalidArgument, "\(sourceManifest) does not exist: nothing to promote")
        }
        let release = try Self.release(name: name, version: version, runtime: runtime, in: bytes, source: sourceManifest)
        // The source's deltas start from the source's versions; this folder writes its own.
        let (files, _) = try ManifestReferences.files(of: release, name: name, in: source, source: sourceManifest)
        let local = Set(files.map(\.0.path))
        guard local.contains(release.url), release.index.map({ local.contains($0.url) }) ?? true else {
            throw PkgError(.invalidArgument, "\(sourceManifest): \(name) \(version): its zip or index is at a URL with a "
                           + "scheme; promote copies the files of \(source) only")
        }

        try FileSystem.makeDirectories(outputDirectory)
        let lock = try lockOutput()
        defer { withExtendedLifetime(lock) {} }
        var manifest = try readManifest(signer: signer)
        let previous = manifest.packages.first { ReleaseSlot($0) == ReleaseSlot(release.entry(name: name)) }
        let revokedBefore = manifest.revocations(of: name)
        try checkNewRelease(name: name, version: version, rolloutPercent: rolloutPercent, replacing: previous,
                            revoked: revokedBefore, force: force)
        try refuseRepublishing(name: name, version: version, sha256: release.sha256, in: manifest, force: force)

        var entry = release.entry(name: name)
        entry.revoked = revokedBefore
        var index: PublishedFileIndex?
        for (file, kind) in files where kind != .delta {
            let content = try file.read(in: source, namedBy: sourceManifest)
            switch kind {
            case .zip:
                entry.url = PublishedLayout.zip(name: name, version: version, sha256: file.sha256)
                try writeContentNamed(content, to: entry.url)
            case .index:
                index = try PublishedFileIndex.parse(content, label: "\(name) \(version)", limits: ExtractionLimits())
                let path = PublishedLayout.index(name: name, version: version, sha256: file.sha256)
                entry.index = IndexReference(url: path, sha256: file.sha256, size: UInt64(content.count))
                try writeContentNamed(content, to: path)
            case .object, .delta:
                try writeContentNamed(content, to: file.path)
            }
        }
        entry.deltas = try index.map { try publishDeltas(to: $0, name: name, version: version, from: deltaFrom) } ?? []
        entry.rollout = rollout(of: entry, percent: rolloutPercent, replacing: previous)
        try replace(entry, in: &manifest, signer: signer)
        return entry
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
