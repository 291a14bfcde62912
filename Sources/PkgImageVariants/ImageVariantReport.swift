import PkgCore

/// What one ``ImageVariantEncoder/encode(_:into:formats:)`` run wrote and declined.
public struct ImageVariantReport: Sendable, Hashable {
    /// The siblings written, in the order of the files given.
    public var written: [ImageVariantResult] = []
    /// The siblings not written, each with its reason (tiny files and siblings the bundle
    /// already has are not listed).
    public var declined: [ImageVariantDecline] = []

    /// The files to add to the bundle.
    public var files: [BundleFile] { written.map(\.file) }
}
