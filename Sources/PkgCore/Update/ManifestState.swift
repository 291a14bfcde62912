import FoundationEssentials
import Glibc

/// The validators of the last manifest whose every package was installed, so
/// the next run can ask the origin "changed since?" and stop at a 304. They
/// count only for the same URL, the same trusted keys and threshold, the same host
/// runtime and the same device id: after a host upgrade, or under another id, the
/// unchanged manifest must be read again, as the releases that fit, and the rollouts
/// the device is in, may have changed. A change of holds forgets them
/// (``PackageStore/hold(_:version:)``, ``PackageStore/unhold(_:)``).
struct ManifestState: Codable {
    var url: String
    var validators: HTTPValidators
    /// Ids of the keys trusted when it was accepted (absent in states written before signing existed).
    var trustedKeyIDs: [String]?
    /// How many of them had to sign (absent: 1, as before thresholds existed).
    var threshold: Int?
    /// The host runtime the run stated (absent: none).
    var runtime: String?
    /// The device id the run decided rollouts for (absent in states written before it was
    /// kept: they do not stand, so such a store reads the manifest once more).
    var deviceID: String?
    /// What a run answered 304 says again of this one's outcomes (``standing(_:)``); absent: nothing.
    var standing: [UpdateReport.PackageOutcome]?

    static func load(_ layout: StoreLayout) -> ManifestState? {
        guard let bytes = try? FileSystem.read(layout.manifestState) else { return nil }
        return try? JSONDecoder().decode(ManifestState.self, from: Data(bytes))
    }

    func save(_ layout: StoreLayout) throws {
        try FileSystem.writeAtomically(try JSONEncoder().encode(self), to: layout.manifestState)
    }

    /// Forgets the validators durably: the unlink is flushed (the state folder fsynced) before
    /// the caller's next step depends on it, so after a power cut a rollback or a hold never
    /// stands while the validators that would answer 304 to its manifest come back.
    static func clear(_ layout: StoreLayout) throws {
        guard unlink(layout.manifestState) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return }
            throw fileSystemError("remove", layout.manifestState)
        }
        try FileSystem.syncDirectory(PathName.parent(layout.manifestState))
    }

    /// How a later run answered 304 for the same manifest reports `outcome`; nil when it has
    /// nothing to say then. What still stands is a held version, a release staged away from
    /// this device, and a release rolling out without it (the version chosen instead is then
    /// active, so `.unchanged`). The store cannot have changed since: a change of holds forgets
    /// the validators, and so does any other run that does not end with them saved again.
    static func standing(_ outcome: UpdateReport.PackageOutcome) -> UpdateReport.PackageOutcome? {
        guard outcome.error == nil, outcome.detail == nil else { return nil }
        switch outcome.action {
        case .held, .staged:
            return outcome
        case .installed, .upgraded, .downgraded, .republished, .unchanged:
            guard outcome.rollingOut != nil else { return nil }
            var unchanged = outcome
            unchanged.from = outcome.to
            unchanged.action = .unchanged
            return unchanged
        case .rolledBack, .revoked, .withdrawn, .pending, .incompatible, .failed:
            return nil
        }
    }
}
