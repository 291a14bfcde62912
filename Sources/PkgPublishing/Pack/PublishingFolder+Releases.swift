import FoundationEssentials
import PkgCore

extension PublishingFolder {
    /// Changes the rollout percentage of `name`'s newest version (nil: keeps it); at 100
    /// every device installs it. A lower percentage is refused unless `force`: devices that
    /// already installed the version keep it either way. `devices` (nil: kept; empty: none)
    /// pins device ids to the release whatever the percentage (``Rollout/devices``, salted
    /// hashes); pins need a release still rolling out. A package with releases for several
    /// runtimes needs `runtime`, the range of the release meant.
    @discardableResult
    public func setRollout(name: String, runtime: RuntimeRange? = nil, percent: Double?, devices: [String]? = nil,
                           force: Bool = false, signer: ManifestSigner? = nil) throws -> ManifestEntry {
        guard FileSystem.isDirectory(root) else { throw missingManifest() }
        return try withLock(.exclusive) {
            try setRolloutHoldingLock(name: name, runtime: runtime, percent: percent, devices: devices, force: force,
                                      signer: signer)
        }
    }

    /// The release of `name` (for `runtime`) the manifest here names now, its rollout included;
    /// a missing manifest or package throws, naming it. Reads under the shared lock.
    public func currentRelease(of name: String, runtime: RuntimeRange? = nil) throws -> ManifestEntry {
        guard FileSystem.isDirectory(root) else { throw missingManifest() }
        return try withLock(.shared) { try release(of: name, runtime: runtime, in: try readManifest().manifest) }
    }

    /// ``setRollout(name:runtime:percent:devices:force:signer:)`` for a caller that holds the exclusive lock.
    func setRolloutHoldingLock(name: String, runtime: RuntimeRange?, percent: Double?, devices: [String]? = nil,
                               force: Bool, signer: ManifestSigner?) throws -> ManifestEntry {
        if let percent, !(0...100).contains(percent) {
            throw PkgError(.invalidArgument, "percent must be 0 to 100 (got \(percent))")
        }
        return try changeManifest(signer: signer) { manifest in
            var entry = try release(of: name, runtime: runtime, in: manifest)
            if entry.revoked.contains(entry.version) {
                throw PkgError(.invalidArgument, "\(name) \(entry.version) is revoked; publish another version")
            }
            let current = entry.rollout?.percent ?? 100
            let percent = percent ?? current
            if percent < current, !force {
                throw PkgError(.invalidArgument, "\(name) \(entry.version) is rolled out to \(Rollout.format(current)); "
                               + "lowering it to \(Rollout.format(percent)) needs force", remedy: .force)
            }
            if percent >= 100 {
                if let devices, !devices.isEmpty {
                    throw PkgError(.invalidArgument, "\(name) \(entry.version) goes to every device; pins need a release "
                                   + "still rolling out (pack --rollout 0, or rollout below 100)")
                }
                entry.rollout = nil
            } else if entry.rollout != nil {
                entry.rollout?.percent = percent
            } else {
                entry.rollout = Rollout(percent: percent, salt: Rollout.makeSalt(), previous: nil)
            }
            if let devices, entry.rollout != nil {
                guard devices.count <= Rollout.pinLimit else {
                    throw PkgError(.invalidArgument, "\(devices.count) devices to pin; at most \(Rollout.pinLimit)")
                }
                let salt = entry.rollout?.salt ?? ""
                let pins = Set(devices.map { Rollout.pin(deviceID: $0, salt: salt) }).sorted()
                entry.rollout?.devices = pins.isEmpty ? nil : pins
            }
            manifest.replaceReleases(with: [entry])
            return entry
        }
    }

    /// Withdraws `version` of `name`: devices never install it again, and one
    /// running it switches back to its newest retained version that is not
    /// revoked. Every release of the package (one per runtime range) lists it; the
    /// release that names it goes back to the version named before it (from its
    /// rollout), if there is one. Returns that release (the first, when none names it).
    @discardableResult
    public func revoke(name: String, version: String, signer: ManifestSigner? = nil) throws -> ManifestEntry {
        guard FileSystem.isDirectory(root) else { throw missingManifest() }
        return try withLock(.exclusive) { try revokeHoldingLock(name: name, version: version, signer: signer) }
    }

    /// ``revoke(name:version:signer:)`` for a caller that holds the exclusive lock.
    func revokeHoldingLock(name: String, version: String, signer: ManifestSigner?) throws -> ManifestEntry {
        try changeManifest(signer: signer) { manifest in
            let releases = manifest.packages.filter { $0.name == name }
            guard !releases.isEmpty else {
                throw PkgError(.invalidArgument, "manifest \(manifestPath) has no package '\(name.escapedForMessage)'")
            }
            guard ManifestEntry.isSafeComponent(version) else {
                throw PkgError(.invalidArgument, "version '\(version.escapedForMessage)' is not a valid version")
            }
            let before = manifest.revocations(of: name)
            let revoked = before.contains(version) ? before : before + [version]
            var changed: [ManifestEntry] = []
            for var entry in releases {
                if entry.version == version, let previous = entry.rollout?.previous, !revoked.contains(previous.version) {
                    entry = previous.entry(name: name)
                } else if entry.rollout?.previous?.version == version {
                    entry.rollout?.previous = nil
                }
                entry.revoked = revoked
                changed.append(entry)
            }
            manifest.replaceReleases(with: changed)
            let named = releases.firstIndex { $0.version == version || $0.rollout?.previous?.version == version }
            return changed[named ?? 0]
        }
    }

    /// `name`'s release for `runtime`; with no runtime, its only release. A package with
    /// releases for several runtimes, or none for `runtime`, is refused in one line.
    func release(of name: String, runtime: RuntimeRange?, in manifest: Manifest) throws -> ManifestEntry {
        let releases = manifest.packages.filter { $0.name == name }
        guard !releases.isEmpty else {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) has no package '\(name.escapedForMessage)'")
        }
        if runtime == nil, releases.count > 1 {
            let ranges = releases.map { "'" + ($0.runtime ?? "*") + "'" }.joined(separator: ", ")
            throw PkgError(.invalidArgument, "\(name) has releases for several runtimes (\(ranges)); name one with --runtime")
        }
        guard let entry = runtime == nil ? releases.first : releases.first(where: { $0.runtimeRange == runtime }) else {
            throw PkgError(.invalidArgument, "\(name) has no release for runtime '\(runtime?.text ?? "")'")
        }
        return entry
    }
}
