import FoundationEssentials

/// Brings a device's root of trust up to date before the manifest is read (TUF's client
/// workflow, specification §5.3): starts from the newer of the root it was given and the one
/// its store kept (`state/root.json`), then fetches `roots/N+1.json` beside the manifest until
/// the origin has none, accepting each only when it is signed by a threshold of the previous
/// root's root keys and of its own. At most ``RootDocument/maxWalk`` steps a run; the newest
/// root must not have expired. It is kept only when the whole walk passed: any refusal leaves
/// the store's trust as it was.
struct RootUpdate {
    let store: PackageStore
    let manifestURL: String
    let clock: @Sendable () -> Date
    let clockSkew: TimeInterval

    /// The newest root this device can reach from `given`, kept in the store when it changed.
    func newest(from given: TrustedRoot, _ downloader: Downloader) throws -> TrustedRoot {
        let kept = try keptRoot()
        if let kept, kept.version == given.version, kept.bytes != given.bytes {
            throw PkgError(.untrustedRoot, "the root given (version \(given.version)) is not the root \(kept.version) this store "
                           + "accepted (the same version with other bytes); give the root the publisher signed")
        }
        var root = kept.map { $0.version > given.version ? $0 : given } ?? given
        var steps = 0
        while let bytes = try fetch(version: root.version + 1, downloader) {
            guard steps < RootDocument.maxWalk else {
                throw PkgError(.untrustedRoot, "the origin offers more than \(RootDocument.maxWalk) roots after root "
                               + "\(root.version - UInt64(steps)); refusing to follow them in one run")
            }
            root = try root.successor(bytes, source: try url(version: root.version + 1))
            steps += 1
        }
        try root.checkNotExpired(now: clock(), clockSkew: clockSkew)
        if root.version != kept?.version {
            try store.layout.prepare()
            try FileSystem.writeAtomically(root.bytes, to: store.layout.rootState)
        }
        return root
    }

    /// The root this store accepted before; nil when it has none.
    private func keptRoot() throws -> TrustedRoot? {
        guard let bytes = try FileSystem.read(store.layout.rootState, limit: RootDocument.maxSize) else { return nil }
        return try TrustedRoot(selfSigned: bytes, source: store.layout.rootState)
    }

    private func url(version: UInt64) throws -> String {
        try ManifestEntry.resolve(RootDocument.path(version: version), relativeTo: manifestURL)
    }

    /// Root `version`'s bytes from the origin; nil when it has none: 404, no such file, or 403, which
    /// is what an S3 bucket answers for a missing key to a client that may not list it (python-tuf
    /// reads both as the end of the chain too).
    private func fetch(version: UInt64, _ downloader: Downloader) throws -> [UInt8]? {
        let url = try url(version: version)
        if url.hasPrefix("file://") {
            guard FileSystem.exists(String(url.dropFirst("file://".count))) else { return nil }
        }
        do {
            return try downloader.fetchBody(url, maxBytes: RootDocument.maxSize)
        } catch let error as PkgError where error.httpStatus == 404 || error.httpStatus == 403 {
            return nil
        }
    }
}
