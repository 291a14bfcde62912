import CImageCodec
import FuzzSupport

/// The PNG and JPEG decoders `pack --image-variants` runs on a bundle's files (CImageCodec over
/// libpng and libjpeg-turbo): the first byte picks the decoder, the rest is the file. A decode
/// that succeeds gives a non-empty image within the pixel bound, whose pixels can all be read
/// (ASan sees a short buffer) and whose SSIM against itself is 1; a failure says why in a
/// NUL-terminated message and leaves no pixels.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 1 else { return 0 }
    let maximumPixels: UInt64 = 1 << 14
    var image = pkg_image()
    var message = [CChar](repeating: 1, count: Int(PKG_IMAGE_MESSAGE_SIZE))
    let status = data[0] & 1 == 0
        ? pkg_png_decode(data + 1, size - 1, maximumPixels, &image, &message)
        : pkg_jpeg_decode(data + 1, size - 1, maximumPixels, &image, &message)
    defer { pkg_image_free(&image) }
    guard status == PKG_IMAGE_OK else {
        fuzzCheck(image.pixels == nil, "a failed decode (\(status)) left pixels")
        fuzzCheck(message.contains(0) && message[0] != 0, "a failed decode (\(status)) gave no message")
        return 0
    }
    fuzzCheck(image.pixels != nil && image.width > 0 && image.height > 0, "an empty image decoded")
    let pixels = UInt64(image.width) * UInt64(image.height)
    fuzzCheck(pixels <= maximumPixels, "\(image.width)x\(image.height) is past the bound of \(maximumPixels) pixels")
    var sum = 0
    for index in 0..<Int(pixels) * 4 { sum &+= Int(image.pixels[index]) }
    _ = pkg_image_is_opaque(&image)
    fuzzCheck(pkg_image_count_colours(&image, 300) <= 301, "colours counted past the limit")
    let ssim = pkg_image_ssim(&image, &image)
    fuzzCheck(ssim < 0 || abs(ssim - 1) < 1e-9, "SSIM of an image against itself is \(ssim) (sum \(sum))")
    return 0
}

@main
enum FuzzImageDecodeMain {
    static func main() { runFuzzer(fuzzImageDecode) }
}
