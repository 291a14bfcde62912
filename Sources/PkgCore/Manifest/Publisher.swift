/// Packs a source tree into `OUT/NAME-VERSION.zip` and lists it in
/// `OUT/manifest.json` (adding the package, or replacing its entry): what an
/// origin serves to `pkgctl update`. With a ``ManifestSigner`` the manifest is
/// written as a signed envelope with a raised sequence.
public struct Publisher: Sendable {
    /// The directory receiving zips and `manifest.json`.
    public let outputDirectory: String

    /// A publisher writing into `outputDirectory` (created when missing).
    public init(outputDirectory: String) {
        self.outputDirectory = outputDirectory
    }

    /// Packs `source` deterministically and records it in the manifest, signed
    /// by `signer` when given; returns the new entry.
    @discardableResult
    public func publish(source: String, name: String, version: String, routes: [String] = [],
                        signer: ManifestSigner? = nil) throws -> ManifestEntry {
        try FileSystem.makeDirectories(outputDirectory)
        let manifestPath = outputDirectory + "/manifest.json"
        let existing = try PublishedManifest.read(manifestPath)
        if existing?.isSigned == true, signer == nil {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) is signed; pass --sign KEYFILE to keep it signed")
        }
        var manifest = existing?.manifest ?? Manifest()

        let fileName = "\(name)-\(version).zip"
        let placeholder = ManifestEntry(name: name, version: version, url: fileName,
                                        sha256: String(repeating: "0", count: 64), size: 0, routes: routes)
        try placeholder.validate(source: manifestPath)

        let zipPath = outputDirectory + "/" + fileName
        try BundlePacker.pack(directory: source, to: zipPath)
        let digest = try FileHasher.hash(file: zipPath)
        let entry = ManifestEntry(name: name, version: version, url: fileName,
                                  sha256: digest.sha256, size: digest.size, routes: routes)
        manifest.packages.removeAll { $0.name == name }
        manifest.packages.append(entry)
        manifest.packages.sort { $0.name < $1.name }
        try PublishedManifest.write(manifest, to: manifestPath, signer: signer)
        return entry
    }
}
