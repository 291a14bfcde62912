/// A build folder served as if it were an installed package version (`pkgctl serve --source`),
/// under the same rules: routing, classification, the SPA fallback, precompressed siblings,
/// immutable globs and declared headers, and the same refusal of symlinks and of paths that
/// leave the folder. Unlike a package, its files are opened on every request, so a file
/// changed in the folder is served changed, with validators that follow it.
///
/// ```swift
/// let folder = try SourceFolder(directory: "dist", route: "www.example.com/app", spaFallback: "index.html")
/// let resolver = try Resolver(folder: folder, cacheDirectory: temporaryDirectory)
/// ```
public struct SourceFolder: Sendable {
    /// The folder, as given.
    public let directory: String
    /// Where it is served: `HOST` or `HOST/PREFIX`, as a manifest's routes are written.
    public let route: String
    /// The document served for navigations that match no file.
    public let spaFallback: String?
    /// Globs of files that never change under their names (served `immutable`).
    public let immutable: [String]
    /// Response headers for some files, as `pack --header` declares them.
    public let headers: [PackageHeader]

    /// Checks every part as `pack` would; throws ``PkgError/Code/invalidArgument`` saying what is
    /// wrong with the first refused part, checked in parameter order (`'/x' must be HOST or HOST/PATH
    /// without a scheme` for a route).
    public init(directory: String, route: String, spaFallback: String? = nil, immutable: [String] = [],
                headers: [PackageHeader] = []) throws {
        func refuse(_ reason: String) -> PkgError { PkgError(.invalidArgument, reason) }
        guard PackageRoute(route) != nil else {
            throw refuse("'\(route.escapedForMessage)' must be HOST or HOST/PATH without a scheme")
        }
        if let spaFallback, case .failure(let refusal) = EntryName.validate(spaFallback) {
            throw refuse("'\(spaFallback.escapedForMessage)': \(refusal.reason)")
        }
        for glob in immutable where !ManifestEntry.isValidGlob(glob) {
            throw refuse("'\(glob.escapedForMessage)' must be 1-256 bytes, relative, without control characters")
        }
        for header in headers {
            if let refusal = header.refusal() { throw refuse(refusal) }
        }
        self.directory = directory
        self.route = route
        self.spaFallback = spaFallback
        self.immutable = immutable
        self.headers = headers
    }
}
