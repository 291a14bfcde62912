/// How ``Updater`` downloads, verifies and installs one version (not yet active), the
/// cheapest way that works: the tree delta from the active version (one request), else file
/// by file when the origin publishes an index and that costs fewer bytes than the zip, else
/// the zip. A step that is missing on the origin or whose bytes fail their digest gives way
/// to the next. An installed, inactive directory of the same version (re-published) is
/// replaced only once the new one is whole.
struct ReleaseDownload {
    let store: PackageStore
    let downloader: Downloader
    /// Where each way's transfers are counted (``TransferMeter/Kind``).
    let meter: TransferMeter
    let manifestURL: String
    let limits: ExtractionLimits
    let workers: Int
    /// The image variants the device installs instead of their originals.
    let images: ImageVariantSelection

    /// Installs `entry` (not yet active), announcing its progress and every fall-back. Returns
    /// why it installed from the zip although a cheaper way was offered; nil when it did not.
    @discardableResult
    func install(_ entry: ManifestEntry, progress: @escaping @Sendable (UpdateEvent) -> Void) throws -> ZipFallback? {
        // A tree delta rebuilds the whole published tree; a device choosing image variants goes
        // file by file (its active tree is never a delta's base anyway).
        var fallback: ZipFallback?
        if images.accepted.isEmpty {
            switch try installTreeDelta(entry, progress: progress) {
            case .installed: return nil
            case .declined(let reason): fallback = reason
            }
        }
        if let reference = entry.index {
            var delta = DeltaInstall(store: store, downloader: downloader.metered(by: meter, as: .objects),
                                     manifestURL: manifestURL, limits: limits)
            delta.images = images
            do {
                var declined: ZipFallback?
                let installed = try delta.install(entry, reference: reference, replacing: true,
                                                  declined: &declined) { received, total in
                    progress(.downloading(name: entry.name, version: entry.version, received: received, total: total))
                }
                if installed != nil { return nil }
                // The tree delta's reason, when it failed, says more than the objects' own.
                if fallback == nil || fallback == .missingBase { fallback = declined }
            } catch let error as PkgError where error.code == .checksumMismatch || error.code == .sizeMismatch {
                // The index or an object is not what the manifest names (a corrupt copy on a CDN
                // edge, say): the zip, checked against its own digest, may still be whole.
                progress(.fellBack(name: entry.name, version: entry.version, reason: error.message + "; installing from the zip"))
                fallback = .hashMismatch
            }
        }
        let url = try entry.resolvedURL(relativeTo: manifestURL)
        try store.ensureRoom(forBytes: entry.size, purpose: "\(entry.name) \(entry.version): downloading \(url)")
        try store.withStagingDirectory(prefix: "\(entry.name)-\(entry.version).download") { archive in
            let zip = archive.path + "/bundle.zip"
            try downloader.metered(by: meter, as: .zip).download(from: url, to: zip, expectedSize: entry.size,
                                    expectedSHA256: entry.sha256) { received, total in
                progress(.downloading(name: entry.name, version: entry.version, received: received, total: total))
            }
            progress(.extracting(name: entry.name, version: entry.version))
            _ = try store.install(entry, archive: zip, limits: limits, workers: workers, checkSpace: true, replacing: true,
                                  discardingArchive: true)
        }
        // A first install has nothing a delta or objects could start from: the zip is its way.
        return store.activeVersion(of: entry.name) == nil ? nil : fallback
    }

    /// What the tree delta came to.
    private enum TreeDeltaOutcome {
        case installed
        /// Not installed by a delta: why, when one was offered.
        case declined(ZipFallback?)
    }

    /// Installs `entry` by the tree delta from the active version; declined when there is none
    /// (or it was refused: announced as a fall-back).
    private func installTreeDelta(_ entry: ManifestEntry, progress: @escaping @Sendable (UpdateEvent) -> Void) throws
        -> TreeDeltaOutcome {
        let tree = TreeDeltaInstall(store: store, downloader: downloader.metered(by: meter, as: .delta),
                                    manifestURL: manifestURL, limits: limits)
        do {
            let installed = try tree.install(entry, replacing: true) { received, total in
                progress(.downloading(name: entry.name, version: entry.version, received: received, total: total))
            }
            if installed != nil { return .installed }
            return .declined(entry.deltas.isEmpty ? nil : try tree.declineReason(for: entry))
        } catch let error as PkgError where error.code != .insufficientSpace && error.code != .deadlineExceeded {
            progress(.fellBack(name: entry.name, version: entry.version,
                               reason: error.message + "; installing without the delta"))
            return .declined(ZipFallback(error))
        }
    }
}
