extension Updater {
    /// The manifest's offers for this device, those whose active version does not fit the
    /// runtime first: a host just upgraded gets a working app before anything else is done.
    func offersUnfitFirst(_ manifest: Manifest) -> [PackageOffer] {
        let offers = PackageOffer.offers(in: manifest, runtime: runtime)
        guard runtime != nil else { return offers }
        let unfit = offers.filter { offer in store.activeVersion(of: offer.name).map { !fitsRuntime(offer.name, $0) } ?? false }
        return unfit + offers.filter { offer in !unfit.contains { $0.name == offer.name } }
    }

    /// Whether installed `version` of `name` fits ``runtime``: true with no runtime stated,
    /// or a version recorded without a range.
    func fitsRuntime(_ name: String, _ version: String) -> Bool {
        guard let record = try? store.record(of: name, version: version) else { return true }
        return record.entry.fits(runtime)
    }

    /// The outcome for a package none of whose releases fits ``runtime``.
    func incompatible(_ offer: PackageOffer) -> UpdateReport.PackageOutcome {
        let active = store.activeVersion(of: offer.name)
        var outcome = UpdateReport.PackageOutcome(name: offer.name, from: active, to: offer.newest.version,
                                                  action: .incompatible)
        let newest = "newest \(offer.newest.version)" + (offer.newest.runtime.map { " is for '\($0)'" } ?? "")
        outcome.detail = "\(offer.name): no release fits runtime \(runtime?.text ?? "-") (\(newest))"
        do {
            try store.clearPending(offer.name)
            if let left = try leaveUnfitActive(offer.name, revoked: offer.revoked) {
                outcome.detail? += "; " + left
            } else if let active {
                outcome.detail? += "; \(active) stays active"
            }
        } catch {
            outcome.action = .failed
            outcome.error = "\(offer.name): \(error)"
            outcome.errorCode = (error as? PkgError)?.code.description ?? "unexpected"
        }
        return outcome
    }

    /// After the package's fitting release was dealt with: an active version that still does
    /// not fit (the release was held, staged away from this device, or failed) is left.
    func leaveIfUnfit(_ offer: PackageOffer, _ outcome: inout UpdateReport.PackageOutcome) {
        do {
            if let left = try leaveUnfitActive(offer.name, revoked: offer.revoked) {
                outcome.detail = "\(offer.name): " + left
            }
        } catch {
            outcome.action = .failed
            outcome.error = [outcome.error, "\(offer.name): \(error)"].compactMap { $0 }.joined(separator: "; ")
            outcome.errorCode = outcome.errorCode ?? (error as? PkgError)?.code.description ?? "unexpected"
        }
    }

    /// When `name`'s active version does not fit ``runtime``: switches to the newest retained
    /// version that does (neither revoked nor held), or else stops serving the package, so
    /// the app falls back to what it ships rather than run a bundle built for another host.
    /// Returns what it did; nil when the active version fits.
    private func leaveUnfitActive(_ name: String, revoked: [String]) throws -> String? {
        guard let runtime, let active = store.activeVersion(of: name),
              let range = try store.record(of: name, version: active)?.entry.runtimeRange,
              !range.contains(runtime) else { return nil }
        let unfit = "\(active) is for '\(range.text)', not runtime \(runtime.text)"
        let held = try store.heldVersions(of: name)
        let fallback = try store.retainedVersions(of: name).last { record in
            let version = record.entry.version
            return !revoked.contains(version) && !held.contains(version) && record.entry.fits(runtime)
        }
        try store.removeTrial(name)
        if let fallback {
            try store.activate(name, version: fallback.entry.version)
            return unfit + "; switched to installed \(fallback.entry.version)"
        }
        try store.stopServing(name, because: IncompatibleVersion(version: active, range: range.text, runtime: runtime.text))
        return unfit + "; no longer served, so the app falls back to what it ships"
    }
}
