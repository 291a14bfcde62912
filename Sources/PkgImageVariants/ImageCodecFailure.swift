import CImageCodec

/// A `pkg_image_status` other than OK from CImageCodec, with its one-line reason.
struct ImageCodecFailure: Error {
    var status: pkg_image_status
    var reason: String

    /// Whether the input itself is broken (rather than valid but unsuitable, or too large).
    var isCorrupt: Bool { status == PKG_IMAGE_CORRUPT }
}
