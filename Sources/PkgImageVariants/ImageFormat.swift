/// A format `pack --image-variants` can write beside a PNG or JPEG.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case avif
    case webp

    /// What the sibling's name adds to the original's: `logo.png` → `logo.png.avif`.
    public var fileSuffix: String { "." + rawValue }
}
