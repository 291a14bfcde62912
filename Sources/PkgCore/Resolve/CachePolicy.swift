/// The `Cache-Control` of local answers.
///
/// A package file's URL keeps its name from one version to the next while its
/// bytes change, so a cache may keep it but must revalidate it every time
/// (`no-cache`): a 304 through the `ETag` or `Last-Modified` is cheap, and a new
/// version is seen at once. A name that carries a content hash (`app.3f2a9c1b.js`,
/// `index-BDoW_Vkf.js`, `chunk-NGNAAXSQ.js`: ``ContentHashedName``), or a file the
/// publisher marked immutable (`pack --immutable`), names those bytes forever, so
/// it may be cached for a year without asking (`immutable`). Overlay entries
/// were fetched from an origin whose own policy is not kept: `no-cache`.
public enum CachePolicy {
    /// For package files whose names carry no content hash, and for overlay entries.
    public static let revalidate = "no-cache"
    /// For package files whose names carry a content hash. Without `public`: these answers are
    /// cacheable by any cache already (no `Authorization`), and REDbot flags it as unnecessary.
    public static let immutable = "max-age=31536000, immutable"

    /// The policy for the package file at `relativePath`.
    public static func forPackageFile(_ relativePath: String) -> String {
        isFingerprinted(relativePath) ? immutable : revalidate
    }

    /// Whether the file at `relativePath` carries a content hash in its name or lives in a
    /// folder a framework keeps for such files (``ContentHashedName``).
    public static func isFingerprinted(_ relativePath: String) -> Bool {
        relativePath.utf8.withContiguousStorageIfAvailable(ContentHashedName.matches)
            ?? Array(relativePath.utf8).withUnsafeBufferPointer(ContentHashedName.matches)
    }
}
