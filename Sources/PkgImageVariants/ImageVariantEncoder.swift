import CImageCodec
import Glibc
import PkgCore

/// Writes `X.png.avif`, `X.png.webp`, `X.jpg.webp`, … beside a bundle's PNG and JPEG files, which
/// the resolver serves to clients whose `Accept` names the format. Decoding, encoding and SSIM
/// are Debian's libpng, libjpeg-turbo, libwebp and libavif (libaom to encode, dav1d to decode)
/// through CImageCodec; the same input gives the same bytes (fixed settings, one codec thread an
/// image, images on as many threads as there are processors).
///
/// Rules, for each original and format:
/// - **Keep** a sibling only when it is at least 10 % smaller than the original (less does not
///   pay for a second copy in the bundle) and its mean SSIM against the original is at least
///   ``minimumSSIM`` (0.98: differences a viewer does not notice side by side).
/// - **Lossless only** for a PNG with any transparency or at most ``paletteLimit`` (256) colours:
///   line art, text and logos ring and blur under lossy coding, and SSIM on colour says nothing
///   of how soft alpha edges look over an unknown background. WebP lossless (preset 6, colours
///   under transparent pixels kept); AVIF with 4:4:4, the identity matrix and quantizer 0. The
///   sibling is kept only when it decodes to exactly the original's RGBA values.
/// - **Lossy** for opaque PNGs with more colours and for every JPEG: a short ladder, from the
///   smallest to the finest, WebP quality ``webpQualities`` (method 6) and AVIF quantizer
///   ``avifQuantizers`` (4:2:0, libaom speed 6); the first step whose SSIM passes is kept. The
///   ladder stops at a step that does not save 10 %, since finer steps are larger.
/// - **Skipped** with a reason: a JPEG in CMYK, with an ICC profile, an EXIF orientation or
///   damaged data; a PNG that is animated or not sRGB (a variant would show other colours, a
///   still or a turned picture); more than ``maximumPixels`` pixels or ``maximumSize`` bytes.
///   Files under ``minimumSize`` and siblings the bundle already has are left alone. A PNG or
///   JPEG that cannot be decoded is an error naming the file.
public enum ImageVariantEncoder {
    /// Files smaller than this are left as they are.
    public static let minimumSize = 1024
    /// Larger files are declined, unread.
    public static let maximumSize = 64 << 20
    /// Images with more pixels are declined before their pixels are allocated (256 MiB of RGBA).
    public static let maximumPixels = 64 << 20
    /// The mean SSIM a lossy sibling needs, at least.
    public static let minimumSSIM = 0.98
    /// PNGs with at most this many colours are encoded losslessly only.
    public static let paletteLimit = 256
    /// WebP qualities tried, in order.
    public static let webpQualities = [80, 90, 95]
    /// AVIF quantizers tried, in order.
    public static let avifQuantizers = [24, 16, 8]

    /// Encodes each PNG and JPEG of `files` into `staging` (a directory the caller owns and
    /// removes) as `formats`, under its bundle name plus `.avif` / `.webp`; returns what it wrote
    /// and what it declined, in the order of `files`.
    ///
    /// Each image is decoded and encoded on one of `workers` threads (nil: one a processor), one
    /// image a thread at a time: CImageCodec makes and frees every codec object per call, none is
    /// shared, libaom and dav1d run with one thread each, and the libraries' one-time set-up is
    /// guarded (`pthread_once` in libaom and dav1d, a mutex in libwebp). The bytes and the report
    /// do not depend on `workers`. An error is the one of the first file, in order, that fails.
    public static func encode(_ files: [BundleFile], into staging: String, formats: [ImageFormat],
                              workers: Int? = nil) throws -> ImageVariantReport {
        let names = Set(files.map(\.name))
        let images = files.filter { decoder(for: $0.name) != nil }
        let reports = try WorkerThreads.map(images.count, workers: workers ?? WorkerThreads.available) { index in
            try variants(of: images[index], besides: names, into: staging, formats: formats)
        }
        var report = ImageVariantReport()
        for each in reports {
            report.written += each.written
            report.declined += each.declined
        }
        return report
    }

    /// The siblings of the PNG or JPEG `file` in `formats` that the bundle (`names`) lacks,
    /// written into `staging`.
    private static func variants(of file: BundleFile, besides names: Set<String>, into staging: String,
                                 formats: [ImageFormat]) throws -> ImageVariantReport {
        var report = ImageVariantReport()
        let wanted = ImageFormat.allCases.filter { formats.contains($0) && !names.contains(file.name + $0.fileSuffix) }
        guard !wanted.isEmpty else { return report }
        func declined(_ reason: String) -> ImageVariantReport {
            report.declined += wanted.map { ImageVariantDecline(name: file.name + $0.fileSuffix, reason: reason) }
            return report
        }
        var info = stat()
        guard stat(file.path, &info) == 0 else { throw fileSystemError("stat", file.path) }
        let originalSize = Int(info.st_size)
        guard originalSize >= minimumSize else { return report }
        guard originalSize <= maximumSize else {
            return declined("\(originalSize) bytes is above the limit of \(maximumSize)")
        }
        guard let bytes = try FileSystem.read(file.path) else { throw fileSystemError("read", file.path) }
        // By its bytes first: sites ship PNGs named .jpg and the other way round, and
        // browsers draw them.
        let isPNG = bytes.starts(with: Self.pngSignature) || (!bytes.starts(with: Self.jpegStart) && Self.isPNG(file.name))
        let decoder: DecodedImage.Decoder = isPNG ? pkg_png_decode : pkg_jpeg_decode
        let original: DecodedImage
        do {
            original = try DecodedImage.decode(bytes, with: decoder, maximumPixels: maximumPixels)
        } catch let failure as ImageCodecFailure where !failure.isCorrupt {
            return declined(failure.reason)
        } catch let failure as ImageCodecFailure {
            throw PkgError(.invalidArgument, "image variants: \(file.path.escapedForMessage): \(failure.reason)")
        }
        let lossless = isPNG
            && (!original.isOpaque || original.colourCount(upTo: paletteLimit) <= paletteLimit)
        for format in wanted {
            let candidate = VariantCandidate(file: file, original: original, originalSize: originalSize, format: format)
            switch try candidate.outcome(lossless: lossless) {
            case .keep(let bytes, let ssim, let quality):
                let target = staging + "/" + candidate.name
                try FileSystem.makeDirectories(PathName.parent(target))
                try FileSystem.writeAtomically(bytes, to: target)
                report.written.append(ImageVariantResult(
                    file: BundleFile(name: candidate.name, path: target), original: file.name, format: format,
                    originalSize: originalSize, size: bytes.count, ssim: ssim, lossless: quality == nil, quality: quality))
            case .decline(let reason):
                report.declined.append(ImageVariantDecline(name: candidate.name, reason: reason))
            }
        }
        try dropAVIFNoSmallerThanWebP(of: file.name, from: &report)
        return report
    }

    /// The resolver prefers AVIF to WebP: an AVIF no smaller than the WebP of the same image
    /// (lossless line art, say) would cost a client bytes, so it is not kept.
    private static func dropAVIFNoSmallerThanWebP(of name: String, from report: inout ImageVariantReport) throws {
        guard let avif = report.written.lastIndex(where: { $0.original == name && $0.format == .avif }),
              let webp = report.written.last(where: { $0.original == name && $0.format == .webp }),
              report.written[avif].size >= webp.size else { return }
        let dropped = report.written.remove(at: avif)
        if unlink(dropped.file.path) != 0 { throw fileSystemError("unlink", dropped.file.path) }
        report.declined.append(ImageVariantDecline(
            name: dropped.file.name, reason: "no smaller than its WebP (\(dropped.size) ≥ \(webp.size) bytes)"))
    }

    /// The first bytes of every PNG, and of every JPEG.
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    private static let jpegStart: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// The decoder a bundle name ending in `.png`, `.jpg` or `.jpeg` (any case) says; the file's
    /// first bytes decide in the end.
    static func decoder(for name: String) -> DecodedImage.Decoder? {
        if isPNG(name) { return pkg_png_decode }
        let lowered = name.lowercased()
        if lowered.hasSuffix(".jpg") || lowered.hasSuffix(".jpeg") { return pkg_jpeg_decode }
        return nil
    }

    static func isPNG(_ name: String) -> Bool {
        name.lowercased().hasSuffix(".png")
    }
}
