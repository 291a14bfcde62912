import PkgCore

/// A sibling ``ImageVariantEncoder`` wrote, and what it measured.
public struct ImageVariantResult: Sendable, Hashable {
    /// The sibling: the original's bundle name plus ``ImageFormat/fileSuffix``, in staging.
    public var file: BundleFile
    /// The original's name in the bundle.
    public var original: String
    /// The sibling's format.
    public var format: ImageFormat
    /// Bytes of the original file.
    public var originalSize: Int
    /// Bytes of the sibling.
    public var size: Int
    /// Mean SSIM of the decoded sibling against the decoded original (1 when lossless).
    public var ssim: Double
    /// Lossless encodings decode to exactly the original's pixels.
    public var lossless: Bool
    /// The lossy step: WebP quality (0–100, higher is finer) or AVIF quantizer (0–63, lower is
    /// finer); nil when lossless.
    public var quality: Int?

    /// `lossless`, `quality 80` or `quantizer 24`.
    public var settings: String {
        guard let quality else { return "lossless" }
        return (format == .webp ? "quality " : "quantizer ") + String(quality)
    }
}
