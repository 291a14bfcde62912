import CImageCodec
import Glibc

/// 8-bit RGBA pixels decoded by CImageCodec, freed with the value.
final class DecodedImage {
    /// A CImageCodec decoder: `pkg_png_decode`, `pkg_jpeg_decode`, `pkg_webp_decode` or `pkg_avif_decode`.
    typealias Decoder = @convention(c) (UnsafePointer<UInt8>?, Int, UInt64, UnsafeMutablePointer<pkg_image>?,
                         UnsafeMutablePointer<CChar>?) -> pkg_image_status

    private var image: pkg_image

    private init(_ image: pkg_image) {
        self.image = image
    }

    deinit {
        pkg_image_free(&image)
    }

    /// `bytes` decoded with `decoder`, refusing more than `maximumPixels` pixels.
    static func decode(_ bytes: [UInt8], with decoder: Decoder, maximumPixels: Int) throws -> DecodedImage {
        var image = pkg_image()
        try checked { message in
            bytes.withUnsafeBufferPointer { decoder($0.baseAddress, $0.count, UInt64(maximumPixels), &image, message) }
        }
        return DecodedImage(image)
    }

    var width: Int { Int(image.width) }
    var height: Int { Int(image.height) }

    /// Whether no pixel is at all transparent.
    var isOpaque: Bool { withUnsafePointer(to: image) { pkg_image_is_opaque($0) } != 0 }

    /// The number of distinct RGBA values, counted no further than `limit + 1`.
    func colourCount(upTo limit: Int) -> Int {
        withUnsafePointer(to: image) { pkg_image_count_colours($0, limit) }
    }

    /// The mean SSIM of the R, G and B channels against `other`; nil when a side is under 11 pixels.
    func ssim(against other: DecodedImage) -> Double? {
        let value = withUnsafePointer(to: image) { mine in withUnsafePointer(to: other.image) { pkg_image_ssim(mine, $0) } }
        return value < 0 ? nil : value
    }

    /// Whether `other` has the same size and exactly the same RGBA values.
    func hasSamePixels(as other: DecodedImage) -> Bool {
        guard width == other.width, height == other.height else { return false }
        return memcmp(image.pixels, other.image.pixels, width * height * 4) == 0
    }

    /// These pixels as `format`: lossless, or lossy at `quality` (WebP quality or AVIF quantizer).
    func encoded(as format: ImageFormat, lossless: Bool, quality: Int) throws -> [UInt8] {
        var data = pkg_image_data()
        defer { pkg_image_data_free(&data) }
        try Self.checked { message in
            withUnsafePointer(to: image) { pixels in
                switch format {
                case .webp: pkg_webp_encode(pixels, lossless ? 1 : 0, Int32(quality), &data, message)
                case .avif: pkg_avif_encode(pixels, lossless ? 1 : 0, Int32(quality), &data, message)
                }
            }
        }
        return Array(UnsafeBufferPointer(start: data.bytes, count: data.size))
    }

    /// Runs `call` with room for CImageCodec's reason; throws it unless the status is OK.
    private static func checked(_ call: (UnsafeMutablePointer<CChar>) -> pkg_image_status) throws {
        var message = [CChar](repeating: 0, count: Int(PKG_IMAGE_MESSAGE_SIZE))
        let status = message.withUnsafeMutableBufferPointer { call($0.baseAddress!) }
        guard status == PKG_IMAGE_OK else {
            let reason = message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            throw ImageCodecFailure(status: status, reason: String(decoding: reason, as: UTF8.self))
        }
    }
}
