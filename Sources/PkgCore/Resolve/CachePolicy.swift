/// The `Cache-Control` of local answers.
///
/// A package file's URL keeps its name from one version to the next while its
/// bytes change, so a cache may keep it but must revalidate it every time
/// (`no-cache`): a 304 through the `ETag` or `Last-Modified` is cheap, and a new
/// version is seen at once. A name that carries a content hash (`app.3f2a9c1b.js`,
/// `main-5d41402abc4b2a76.css`: a lower-case hex segment of 8 to 64 characters,
/// with a letter and a digit, before the extension) names those bytes forever, so
/// it may be cached for a year without asking (`immutable`). Overlay entries
/// were fetched from an origin whose own policy is not kept: `no-cache`.
public enum CachePolicy {
    /// For package files whose names carry no content hash, and for overlay entries.
    public static let revalidate = "no-cache"
    /// For package files whose names carry a content hash.
    public static let immutable = "public, max-age=31536000, immutable"

    /// The policy for the package file at `relativePath`.
    public static func forPackageFile(_ relativePath: String) -> String {
        isFingerprinted(relativePath) ? immutable : revalidate
    }

    /// Whether the file name's last segment before its extension is a content hash.
    public static func isFingerprinted(_ relativePath: String) -> Bool {
        relativePath.utf8.withContiguousStorageIfAvailable(isFingerprinted(bytes:))
            ?? Array(relativePath.utf8).withUnsafeBufferPointer(isFingerprinted(bytes:))
    }

    private static func isFingerprinted(bytes path: UnsafeBufferPointer<UInt8>) -> Bool {
        let name = path[((path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1)...]
        guard let extensionDot = name.lastIndex(of: UInt8(ascii: ".")) else { return false }
        let stem = name[..<extensionDot]
        let start = stem.lastIndex { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
        guard let start else { return false }
        let segment = stem[(start + 1)...]
        guard (8...64).contains(segment.count) else { return false }
        var letters = 0, digits = 0
        for byte in segment {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "a")...UInt8(ascii: "f"): letters += 1
            default: return false
            }
        }
        return letters > 0 && digits > 0
    }
}
