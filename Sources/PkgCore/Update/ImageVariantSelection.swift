/// Which files of a published version a device installs when it says which image variants its
/// engine decodes (`update --accept-images avif,webp`): for each PNG or JPEG `X` with a variant
/// the device accepts (``ImageVariant``; AVIF before WebP, as the resolver prefers them),
/// only that variant, `X.avif` or `X.webp`, instead of `X`; and no variant the device does not
/// accept. The resolver answers a request for `X` with the variant it finds
/// (``Resolver``), so the page is the same and only the image bytes shrink, on the wire
/// and on disk.
struct ImageVariantSelection {
    /// The variants the device's engine decodes; empty: every file, as published.
    let accepted: Set<ImageVariant>

    /// The files to install of `files`.
    func select(_ files: [PublishedFileIndex.File]) -> [PublishedFileIndex.File] {
        guard !accepted.isEmpty else { return files }
        let paths = Set(files.map(\.path))
        /// For each original that has an accepted variant, the one installed instead.
        var chosen: [String: ImageVariant] = [:]
        for path in paths where ImageVariant.mayHaveVariants(path) {
            chosen[path] = ImageVariant.allCases.first { accepted.contains($0) && paths.contains(path + $0.fileSuffix) }
        }
        return files.filter { file in
            if chosen[file.path] != nil { return false }
            guard let variant = Self.variant(named: file.path) else { return true }
            let original = String(file.path.dropLast(variant.fileSuffix.utf8.count))
            guard paths.contains(original) else { return true }  // a variant the bundle has alone
            return chosen[original] == variant
        }
    }

    /// The variant a path names by its suffix, when what it is a variant of is a PNG or JPEG.
    static func variant(named path: String) -> ImageVariant? {
        ImageVariant.allCases.first {
            path.hasSuffix($0.fileSuffix) && ImageVariant.mayHaveVariants(path.dropLast($0.fileSuffix.utf8.count))
        }
    }
}
