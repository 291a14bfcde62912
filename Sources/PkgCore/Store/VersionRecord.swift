import FoundationEssentials

/// What the store knows of one installed version: the manifest entry it came
/// from, when it was installed, and its file index. Written before the version
/// directory is renamed into place, so a version directory without a record is
/// an interrupted install.
public struct VersionRecord: Codable, Sendable, Hashable {
    /// The manifest entry the version was installed from (routes included).
    public var entry: ManifestEntry
    /// When it was first installed; orders rollback and gc.
    public var installedAt: Date
    /// Every installed file with its size and SHA-256.
    public var index: FileIndex

    /// A record of one installed version.
    public init(entry: ManifestEntry, installedAt: Date = Date(), index: FileIndex) {
        self.entry = entry
        self.installedAt = installedAt
        self.index = index
    }

    static func load(from path: String) throws -> VersionRecord? {
        try StateFile.load(VersionRecord.self, from: path, what: "version record")
    }

    func save(to path: String) throws {
        try StateFile.save(self, to: path)
    }
}
