import CImageCodec
import PkgCore

/// One sibling to try: a decoded original and the format to encode it in, by
/// ``ImageVariantEncoder``'s rules.
struct VariantCandidate {
    var file: BundleFile
    var original: DecodedImage
    var originalSize: Int
    var format: ImageFormat

    /// The sibling's bundle name.
    var name: String { file.name + format.fileSuffix }

    /// The lossless encoding or the lossy ladder's; declined when the format cannot hold the
    /// image (WebP past 16383 pixels a side).
    func outcome(lossless: Bool) throws -> VariantOutcome {
        do {
            return try lossless ? losslessOutcome() : lossyOutcome()
        } catch let failure as ImageCodecFailure where failure.status == PKG_IMAGE_UNSUPPORTED {
            return .decline(failure.reason)
        }
    }

    /// The lossless encoding, kept when it saves 10 % and decodes to the original's pixels.
    private func losslessOutcome() throws -> VariantOutcome {
        let bytes = try encoded(lossless: true, quality: 0)
        guard saves(bytes) else { return .decline("saves under 10 % (\(originalSize) → \(bytes.count) bytes, lossless)") }
        guard try decoded(bytes).hasSamePixels(as: original) else {
            return .decline("its lossless \(format.rawValue) does not decode to the original's pixels")
        }
        return .keep(bytes: bytes, ssim: 1, quality: nil)
    }

    /// The first step of the format's ladder that saves 10 % and reaches the SSIM bound.
    private func lossyOutcome() throws -> VariantOutcome {
        let ladder = format == .webp ? ImageVariantEncoder.webpQualities : ImageVariantEncoder.avifQuantizers
        var best: (ssim: Double, quality: Int)?
        for quality in ladder {
            let bytes = try encoded(lossless: false, quality: quality)
            guard saves(bytes) else {
                return .decline("saves under 10 % (\(originalSize) → \(bytes.count) bytes, \(setting(quality)))"
                    + (best.map { "; SSIM \(fourDecimals($0.ssim)) at \(setting($0.quality))" } ?? ""))
            }
            guard let ssim = try decoded(bytes).ssim(against: original) else {
                return .decline("SSIM cannot be measured (under 11 pixels a side)")
            }
            if ssim >= ImageVariantEncoder.minimumSSIM { return .keep(bytes: bytes, ssim: ssim, quality: quality) }
            if ssim > best?.ssim ?? -1 { best = (ssim, quality) }
        }
        let closest = best.map { "; best \(fourDecimals($0.ssim)) at \(setting($0.quality))" } ?? ""
        return .decline("SSIM under \(ImageVariantEncoder.minimumSSIM) at every step" + closest)
    }

    /// The encoding; an ImageCodecFailure when the format cannot hold the image, a PkgError when it fails.
    private func encoded(lossless: Bool, quality: Int) throws -> [UInt8] {
        do {
            return try original.encoded(as: format, lossless: lossless, quality: quality)
        } catch let failure as ImageCodecFailure where failure.status != PKG_IMAGE_UNSUPPORTED {
            throw PkgError(.fileSystem, "image variants: \(file.path.escapedForMessage) as \(format.rawValue): \(failure.reason)")
        }
    }

    /// `bytes` decoded again, as a client would. One that does not decode declines this variant
    /// (an unsupported failure), not the whole pack.
    private func decoded(_ bytes: [UInt8]) throws -> DecodedImage {
        do {
            return try DecodedImage.decode(bytes, with: format == .webp ? pkg_webp_decode : pkg_avif_decode,
                                           maximumPixels: ImageVariantEncoder.maximumPixels)
        } catch let failure as ImageCodecFailure {
            throw ImageCodecFailure(status: PKG_IMAGE_UNSUPPORTED,
                                    reason: "its \(format.rawValue) does not decode: \(failure.reason)")
        }
    }

    /// Whether `bytes` are at most nine tenths of the original.
    private func saves(_ bytes: [UInt8]) -> Bool {
        bytes.count * 10 <= originalSize * 9
    }

    /// `quality 80` or `quantizer 24`.
    private func setting(_ quality: Int) -> String {
        (format == .webp ? "quality " : "quantizer ") + String(quality)
    }

    /// `ssim` to four decimals, cut rather than rounded (0.97996 is not shown as the bound).
    private func fourDecimals(_ ssim: Double) -> String {
        String((ssim * 10000).rounded(.down) / 10000)
    }
}
