import PkgCore

/// Writes files a bundle gets at `pack` time beside its own, such as the image variants
/// `X.png.webp` of `pkgctl pack --image-variants`, given to ``PublishingFolder/pack(source:name:version:options:signer:)``.
public protocol BundleSiblingWriter: Sendable {
    /// Writes the siblings of `files` into `staging` (a directory the caller owns and removes),
    /// under their bundle names; returns the files written.
    func siblings(of files: [BundleFile], into staging: String) throws -> [BundleFile]
}
