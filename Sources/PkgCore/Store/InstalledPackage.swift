/// A package's active version as seen by ``PackageStore/activePackages()``.
public struct InstalledPackage: Sendable, Hashable, Codable {
    /// The package name.
    public var name: String
    /// The active version.
    public var version: String
    /// Absolute path of the active version's directory.
    public var directory: String
    /// The routes of the active version's manifest entry.
    public var routes: [String]
    /// The active version's single-page-app fallback document, if any.
    public var spaFallback: String?
    /// Globs of the active version's files the publisher marked immutable.
    public var immutable: [String] = []
    /// The active version's declared response headers.
    public var headers: [PackageHeader] = []
    /// All completely installed versions, oldest install first.
    public var retainedVersions: [String]
}
