extension Publisher {
    /// Refuses a new release of `version` in place of `previous` (the slot's release now), with
    /// `rolloutPercent`: a percentage outside 0 to 100, a revoked version, and, unless `force`,
    /// one that would cut short an unfinished rollout or lower this version's share.
    func checkNewRelease(name: String, version: String, rolloutPercent: Double?, replacing previous: ManifestEntry?,
                         revoked: [String], force: Bool) throws {
        if let rolloutPercent, !(0...100).contains(rolloutPercent) {
            throw PkgError(.invalidArgument, "rollout percent must be 0 to 100 (got \(rolloutPercent))")
        }
        if revoked.contains(version) {
            throw PkgError(.invalidArgument, "\(name) \(version) is revoked; publish another version")
        }
        guard let rolloutPercent, rolloutPercent < 100, let previous, let unfinished = previous.rollout, !force else { return }
        if previous.version != version {
            throw PkgError(.invalidArgument, "\(name) \(previous.version) is still rolling out (\(unfinished.share)); "
                           + "halt it (pkgctl revoke \(outputDirectory) \(name) \(previous.version)), finish it (pkgctl rollout "
                           + "\(outputDirectory) \(name) 100), or force this one to replace it", remedy: .force)
        }
        if rolloutPercent < unfinished.percent {
            throw PkgError(.invalidArgument, "\(name) \(version) is rolled out to \(unfinished.share); lowering it "
                           + "to \(Rollout.format(rolloutPercent)) needs force", remedy: .force)
        }
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
