import PkgCore

extension PublishingFolder {
    /// Refuses a new release of `version` in place of `previous` (the slot's release now): a
    /// rollout percentage outside 0 to 100, a revoked version, one that sorts below `previous`
    /// unless ``PackOptions/allowDowngrade`` (``refuseDowngrade(name:version:below:)``; a version
    /// `manifest` names already is a re-pack, which ``refuseRepublishing(name:version:sha256:in:force:)``
    /// judges), and, unless
    /// ``PackOptions/force``, one that would cut short an unfinished rollout or lower this version's share.
    func checkNewRelease(name: String, version: String, options: PackOptions, replacing previous: ManifestEntry?,
                         revoked: [String], in manifest: Manifest) throws {
        if let percent = options.rolloutPercent, !(0...100).contains(percent) {
            throw PkgError(.invalidArgument, "rollout percent must be 0 to 100 (got \(percent))")
        }
        if revoked.contains(version) {
            throw PkgError(.invalidArgument, "\(name) \(version) is revoked; publish another version")
        }
        if let previous, !options.allowDowngrade, PackageVersion(version) < PackageVersion(previous.version),
           namedReleases(name: name, version: version, in: manifest).isEmpty {
            try refuseDowngrade(name: name, version: version, below: previous.version)
        }
        guard let percent = options.rolloutPercent, percent < 100, let previous, let unfinished = previous.rollout,
              !options.force else { return }
        if previous.version != version {
            throw PkgError(.invalidArgument, "\(name) \(previous.version) is still rolling out (\(unfinished.share)); "
                           + "halt it (pkgctl revoke \(root) \(name) \(previous.version)), finish it (pkgctl rollout "
                           + "\(root) \(name) 100), or force this one to replace it", remedy: .force)
        }
        if percent < unfinished.percent {
            throw PkgError(.invalidArgument, "\(name) \(version) is rolled out to \(unfinished.share); lowering it "
                           + "to \(Rollout.format(percent)) needs force", remedy: .force)
        }
    }

    /// Refuses `version`, which sorts below `current`, the version the manifest names now: devices
    /// would take it as a downgrade (a hot fix written `3.18.0-hotfix1` is a pre-release of 3.18.0).
    /// Names versions that would sort above `current`, and one that would not.
    private func refuseDowngrade(name: String, version: String, below current: String) throws {
        let core = String(current.prefix { $0 != "-" && $0 != "+" })
        var parts = core.split(separator: ".").map(String.init)
        var above: [String] = []
        if let last = parts.last.flatMap({ UInt64($0) }) {
            parts[parts.count - 1] = String(last + 1)
            above.append(parts.joined(separator: "."))
        }
        above.append(core + ".1")
        throw PkgError(.downgrade, "\(name) \(version) sorts below \(current), the version \(manifestPath) names now, "
                       + "and devices would take it as a downgrade; name it to sort above (" + above.joined(separator: " or ")
                       + " would; \(core)-hotfix.1 would not), or pass --allow-downgrade")
    }

    /// The rollout of the new release `entry` to `percent` of devices (nil at 100 % or without a
    /// percentage), in place of `previous`: the others keep `previous` (or, when it is the same
    /// version, what they kept before), and the same version keeps its salt and pins.
    func rollout(of entry: ManifestEntry, percent: Double?, replacing previous: ManifestEntry?) -> Rollout? {
        guard let percent, percent < 100 else { return nil }
        let sameVersion = previous?.version == entry.version
        let before = previous.flatMap { sameVersion ? $0.rollout?.previous : Release($0) }
            .flatMap { entry.revoked.contains($0.version) ? nil : $0 }
        let salt = (sameVersion ? previous?.rollout?.salt : nil) ?? Rollout.makeSalt()
        return Rollout(percent: percent, salt: salt, previous: before, devices: sameVersion ? previous?.rollout?.devices : nil)
    }
}
