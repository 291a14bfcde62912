import PkgCore

/// What a publishing folder's manifest gives devices now for one package, for the fleet page:
/// the release, its rollout share and pins, and since when a manifest has named it.
public struct PublishedRelease: Sendable, Hashable, Encodable {
    /// The package.
    public var package: String
    /// The release the manifest names.
    public var release: String
    /// The share of devices, 0 to 100, that install it; nil without a staged rollout (every device).
    public var rolloutPercent: Double?
    /// Devices pinned to it whatever the share; nil: no pin list.
    public var pinnedDevices: Int?
    /// What devices outside the rollout install; nil: they keep what they have.
    public var previous: String?
    /// Versions devices must leave.
    public var revoked: [String]
    /// When a manifest first named this release with these bytes, in seconds since 1970: the
    /// oldest archived manifest (`manifests/`) that did; nil when none is archived.
    public var namedSince: Double?

    /// One line in words: `demo 3.18.4 to 50 % of devices, and 2 pinned devices, the others to
    /// 3.18.3; named by the manifest since 2026-11-28 10:00 UTC` (the share as `rollout` says it).
    public var sentence: String {
        "\(package) \(release) to " + Rollout.audience(percent: rolloutPercent, pinned: pinnedDevices)
            + (previous.map { ", the others to \($0)" } ?? "")
            + (revoked.isEmpty ? "" : "; revoked: " + revoked.joined(separator: ", "))
            + (namedSince.map { "; named by the manifest since \(AdoptionChart.clock($0)) UTC" } ?? "")
    }
}

extension PublishingFolder {
    /// What the manifest gives devices now, per package (under the folder's shared lock).
    public func publishedReleases() throws -> [PublishedRelease] {
        guard FileSystem.isDirectory(root) else { throw PkgError(.invalidArgument, "\(root.escapedForMessage) is not a directory") }
        return try withLock(.shared) {
            let manifest = try readManifest().manifest
            let archives = archivedManifests()
            return manifest.packages.map { entry in
                let since = archives.filter { archive in
                    archive.manifest.packages.contains { $0.name == entry.name && $0.sha256 == entry.sha256 }
                }.map { Double(FileSystem.modificationStamp($0.path)) / 1e9 }.min()
                return PublishedRelease(package: entry.name, release: entry.version,
                                        rolloutPercent: entry.rollout?.percent,
                                        pinnedDevices: entry.rollout?.devices?.count,
                                        previous: entry.rollout?.previous?.version, revoked: entry.revoked,
                                        namedSince: since)
            }
        }
    }
}
