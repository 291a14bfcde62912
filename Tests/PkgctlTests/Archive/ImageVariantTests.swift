import CImageCodec
import Foundation
import PkgCore
import Testing
@testable import PkgImageVariants

/// `pack --image-variants`: AVIF and WebP siblings of PNG and JPEG files, checked against
/// ImageMagick fixtures with scikit-image's SSIM and Pillow's own libwebp and libavif decoders
/// (other builds than the Debian libraries that wrote the siblings).
@Suite struct ImageVariantTests {
    static let convert = "/usr/bin/convert"
    static let checker = pythonModuleIsInstalled("skimage") && pythonModuleIsInstalled("PIL.AvifImagePlugin")

    /// Reads images with Pillow and answers `ssim A B` (scikit-image, the settings CImageCodec
    /// follows) or `same A B` (identical RGBA values).
    static let script = """
        import sys
        import numpy
        from PIL import Image
        from skimage.metrics import structural_similarity
        mode, first, second = sys.argv[1:4]
        if mode == "ssim":
            a, b = (numpy.asarray(Image.open(p).convert("RGB")) for p in (first, second))
            print(structural_similarity(a, b, gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
                                        data_range=255, channel_axis=2))
        else:
            a, b = (numpy.asarray(Image.open(p).convert("RGBA")) for p in (first, second))
            print("same" if a.shape == b.shape and (a == b).all() else "different")
        """

    /// A smooth 640x480 picture, photo-like: blurred fractal plasma, 8 bits a channel.
    static let photo = ["-size", "640x480", "-seed", "1", "plasma:fractal", "-blur", "0x3", "-depth", "8"]

    /// Makes `name` in `directory` with ImageMagick's `convert ARGUMENTS NAME`.
    @discardableResult
    static func image(_ name: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> BundleFile {
        let path = directory.path(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try runCommand(convert, arguments + [path])
        return BundleFile(name: name, path: path)
    }

    static func python(_ mode: String, _ first: String, _ second: String) throws -> String {
        try runCommand("/usr/bin/env", ["python3", "-c", script, mode, first, second])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func size(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.size] as? Int).map { $0 } ?? -1
    }

    @Test(.enabled(if: checker, "needs scikit-image and Pillow (scripts/setup --test)"))
    func aPhotoPNGAndAJPEGGetLossySiblingsATenthSmallerWithSSIMAtLeast098() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        let png = try Self.image("img/photo.png", Self.photo, in: source)
        let jpeg = try Self.image("img/photo.jpg", [source.path("img/photo.png"), "-quality", "90"], in: source)
        let report = try ImageVariantEncoder.encode([png, jpeg], into: staging.path, formats: [.webp, .avif])

        #expect(report.declined.isEmpty, "\(report.declined)")
        #expect(report.written.map(\.file.name) == ["img/photo.png.avif", "img/photo.png.webp",
                                                    "img/photo.jpg.avif", "img/photo.jpg.webp"])
        for variant in report.written {
            let original = variant.original == png.name ? png.path : jpeg.path
            #expect(variant.originalSize == (try Self.size(original)))
            #expect(variant.size == (try Self.size(variant.file.path)))
            #expect(variant.file.path == staging.path(variant.file.name))
            #expect(variant.size * 10 <= variant.originalSize * 9, "\(variant)")
            #expect(!variant.lossless && variant.quality != nil)
            let measured = try #require(Double(try Self.python("ssim", original, variant.file.path)))
            #expect(measured >= 0.98, "\(variant.file.name) \(variant.settings): scikit-image SSIM \(measured)")
            #expect(abs(measured - variant.ssim) <= 0.002, "\(variant.file.name): \(measured) vs \(variant.ssim)")
            print("\(variant.file.name): \(variant.originalSize) → \(variant.size) bytes, \(variant.settings), "
                + "SSIM \(variant.ssim) (scikit-image \(measured))")
        }
    }

    @Test(.enabled(if: checker, "needs scikit-image and Pillow (scripts/setup --test)"))
    func lineArtAndSoftAlphaPNGsGetLosslessSiblingsThatDecodeExactly() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        // Antialiased shapes and lines: 232 colours.
        let logo = try Self.image("logo.png", ["-size", "480x240", "xc:white", "-stroke", "#241f31", "-strokewidth", "3",
                                               "-fill", "#1a5fb4", "-draw", "rectangle 20,20 200,200",
                                               "-fill", "#e01b24", "-draw", "circle 340,120 340,30", "-fill", "none",
                                               "-draw", "line 0,230 480,10", "-draw", "polyline 10,10 60,80 110,10 160,80",
                                               "-depth", "8"], in: source)
        let soft = try Self.image("soft.png", ["-size", "200x200", "xc:none", "-fill", "#2ec27e",
                                               "-draw", "circle 100,100 100,30", "-blur", "0x4", "-depth", "8"], in: source)
        let report = try ImageVariantEncoder.encode([logo, soft], into: staging.path, formats: [.avif, .webp])

        // Lossless AVIF does poorly on line art: several times the PNG. On the soft circle it saves
        // a tenth, but the lossless WebP is smaller still, so an AVIF engine gets the WebP.
        #expect(report.declined.map(\.name) == ["logo.png.avif", "soft.png.avif"])
        #expect(report.declined.first?.reason.hasPrefix("saves under 10 % (\(try Self.size(logo.path)) → ") == true,
                "\(report.declined)")
        #expect(report.declined.last?.reason.hasPrefix("no smaller than its WebP (") == true, "\(report.declined)")
        #expect(!FileManager.default.fileExists(atPath: staging.path("soft.png.avif")), "the dropped AVIF stayed in staging")
        #expect(report.written.map(\.file.name) == ["logo.png.webp", "soft.png.webp"])
        for variant in report.written {
            #expect(variant.lossless && variant.quality == nil && variant.ssim == 1 && variant.settings == "lossless")
            #expect(variant.size * 10 <= variant.originalSize * 9, "\(variant)")
            let original = variant.original == logo.name ? logo.path : soft.path
            #expect(try Self.python("same", original, variant.file.path) == "same", "\(variant.file.name)")
            print("\(variant.file.name): \(variant.originalSize) → \(variant.size) bytes, lossless")
        }
    }

    @Test func siblingsThatWouldSaveUnderATenthOrExistAlreadyAreNotWritten() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        try Self.image("photo.png", Self.photo, in: source)
        // Already small at JPEG quality 40: WebP and AVIF at SSIM 0.98 are not a tenth smaller.
        let small = try Self.image("small.jpg", [source.path("photo.png"), "-quality", "40"], in: source)
        let tiny = try Self.image("tiny.png", ["-size", "8x8", "xc:red"], in: source)
        let photo = BundleFile(name: "photo.png", path: source.path("photo.png"))
        let existing = BundleFile(name: "photo.png.webp", path: source.path("photo.png"))
        let report = try ImageVariantEncoder.encode([small, tiny, photo, existing], into: staging.path, formats: [.webp, .avif])

        #expect(report.written.map(\.file.name) == ["photo.png.avif"])
        #expect(report.declined.map(\.name) == ["small.jpg.avif", "small.jpg.webp"])
        #expect(report.declined.allSatisfy { $0.reason.hasPrefix("saves under 10 % (") }, "\(report.declined)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: staging.path) == ["photo.png.avif"])
    }

    /// Images are encoded on several threads at once: the siblings, their order and the report
    /// are the same on one thread as on two or three.
    @Test func encodingOnOneTwoOrThreeThreadsGivesTheSameBytes() throws {
        let source = try TemporaryDirectory()
        let photo = try Self.image("photo.png", Self.photo, in: source)
        let jpeg = try Self.image("photo.jpg", [source.path("photo.png"), "-quality", "90"], in: source)
        let soft = try Self.image("soft.png", ["-size", "200x200", "xc:none", "-fill", "#2ec27e",
                                               "-draw", "circle 100,100 100,30", "-blur", "0x4"], in: source)
        let tiny = try Self.image("tiny.png", ["-size", "8x8", "xc:red"], in: source)
        let files = [photo, tiny, jpeg, soft]
        let first = try TemporaryDirectory()
        let one = try ImageVariantEncoder.encode(files, into: first.path, formats: [.avif, .webp], workers: 1)
        #expect(one.written.count == 5, "\(one.written.map(\.file.name))")  // soft.png's AVIF is larger than its WebP
        #expect(one.declined.map(\.name) == ["soft.png.avif"])

        for workers in [2, 3] {
            let staging = try TemporaryDirectory()
            let other = try ImageVariantEncoder.encode(files, into: staging.path, formats: [.avif, .webp], workers: workers)
            #expect(other.declined == one.declined)
            #expect(other.written.map { [$0.file.name, $0.original, $0.settings, "\($0.size)", "\($0.ssim)"] }
                    == one.written.map { [$0.file.name, $0.original, $0.settings, "\($0.size)", "\($0.ssim)"] })
            for name in one.written.map(\.file.name) {
                #expect(FileManager.default.contents(atPath: first.path(name)) == FileManager.default.contents(atPath: staging.path(name)),
                        "\(name) differs on \(workers) threads")
            }
        }
    }

    @Test(arguments: ["broken.png", "broken.jpg"])
    func aCorruptImageIsAOneLineErrorNamingTheFile(name: String) throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        let whole = try Self.image("whole" + name.dropFirst(6), Self.photo, in: source)
        var bytes = try #require(FileManager.default.contents(atPath: whole.path))
        // A PNG cut short in its image data; a JPEG with its header mangled after SOI.
        bytes = name.hasSuffix(".png") ? bytes.prefix(bytes.count / 2) : Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data("garbage".utf8) + bytes.dropFirst(2)
        let path = try source.write(Array(bytes), to: name)

        let error = try #require(throws: PkgError.self) {
            try ImageVariantEncoder.encode([BundleFile(name: name, path: path)], into: staging.path, formats: [.webp])
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message.hasPrefix("image variants: \(path): not a readable \(name.hasSuffix(".png") ? "PNG" : "JPEG"): "),
                "\(error.message)")
        #expect(!error.message.contains("\n"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: staging.path).isEmpty)
    }

    /// Of two corrupt images encoded at once, the error is the first one's in the bundle's order.
    @Test func ofTwoCorruptImagesTheFirstInOrderIsTheError() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        let photo = try Self.image("a.png", Self.photo, in: source)
        let broken = try source.write([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 2000),
                                      to: "b.png")
        let alsoBroken = try source.write([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 2000), to: "c.jpg")
        let files = [photo, BundleFile(name: "b.png", path: broken), BundleFile(name: "c.jpg", path: alsoBroken)]
        for workers in [1, 2, 3] {
            let error = try #require(throws: PkgError.self) {
                try ImageVariantEncoder.encode(files, into: staging.path, formats: [.webp], workers: workers)
            }
            #expect(error.message.hasPrefix("image variants: \(broken): "), "\(error.message)")
        }
    }

    @Test func oddImagesAreSkippedWithAReasonOrReadAsEightBits() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        try Self.image("photo.jpg", Self.photo + ["-quality", "90"], in: source)
        let cmyk = try Self.image("cmyk.jpg", [source.path("photo.jpg"), "-colorspace", "CMYK"], in: source)
        let whole = try #require(FileManager.default.contents(atPath: source.path("photo.jpg")))
        let truncated = try source.write(Array(whole.prefix(whole.count / 2)), to: "truncated.jpg")
        let deep = try Self.image("deep.png", Array(Self.photo.dropLast()) + ["16"], in: source)
        let report = try ImageVariantEncoder.encode(
            [cmyk, BundleFile(name: "truncated.jpg", path: truncated), deep], into: staging.path, formats: [.webp])

        #expect(report.declined == [
            ImageVariantDecline(name: "cmyk.jpg.webp", reason: "a CMYK JPEG"),
            ImageVariantDecline(name: "truncated.jpg.webp", reason: "damaged JPEG data: Premature end of JPEG file"),
        ])
        #expect(report.written.map(\.file.name) == ["deep.png.webp"], "a 16-bit PNG is read as 8 bits")
    }

    /// A picture wider than AV1 and WebP can code (65,536 and 16,383 pixels a side) but within
    /// the pixel limit is declined for both formats: the pack goes on.
    @Test(.enabled(if: checker, "needs Pillow (scripts/setup --test)"))
    func aPictureTooWideForTheFormatsIsDeclinedNotAFailure() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        // ImageMagick's policy refuses such a width; Pillow draws it.
        let path = source.path("wide.png")
        try runCommand("/usr/bin/env", ["python3", "-c", "import sys; from PIL import Image; "
                                        + "Image.effect_noise((70000, 4), 60).convert('RGB').save(sys.argv[1])", path])
        let wide = BundleFile(name: "wide.png", path: path)
        let report = try ImageVariantEncoder.encode([wide], into: staging.path, formats: [.avif, .webp])
        #expect(report.written.isEmpty)
        #expect(report.declined.map(\.name).sorted() == ["wide.png.avif", "wide.png.webp"], "\(report.declined)")
        #expect(report.declined.contains { $0.reason.contains("65536") }, "\(report.declined)")
    }

    @Test func rotatedOrProfiledJPEGsAndAnimatedPNGsAreDeclined() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        let jpeg = Array(try #require(FileManager.default.contents(atPath: try Self.image("photo.jpg", Self.photo, in: source).path)))
        let png = Array(try #require(FileManager.default.contents(atPath: try Self.image("photo.png", Self.photo, in: source).path)))
        // APP1 Exif, big-endian TIFF, one IFD entry: orientation (0x0112), SHORT, 1 value, 6 (turned right).
        let exif: [UInt8] = Array("Exif\0\0MM\0*".utf8) + [0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
        // APP2 ICC_PROFILE, part 1 of 1 (libjpeg reassembles it without judging the profile).
        let icc: [UInt8] = Array("ICC_PROFILE\0".utf8) + [1, 1] + Array(repeating: 7, count: 128)
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        // acTL (1 frame, played once) right after IHDR, as an APNG has it.
        let actl = Array("acTL".utf8) + [0, 0, 0, 1, 0, 0, 0, 0]
        let ihdrEnd = 8 + 25
        let animated = Array(png[..<ihdrEnd]) + [0, 0, 0, 8] + actl + bigEndian(crc32(actl)) + Array(png[ihdrEnd...])
        var files: [BundleFile] = []
        for (name, bytes) in [("rotated.jpg", Array(jpeg[..<2]) + segment(0xE1, exif) + Array(jpeg[2...])),
                              ("profiled.jpg", Array(jpeg[..<2]) + segment(0xE2, icc) + Array(jpeg[2...])),
                              ("animated.png", animated)] {
            files.append(BundleFile(name: name, path: try source.write(bytes, to: name)))
        }
        let report = try ImageVariantEncoder.encode(files, into: staging.path, formats: [.avif])

        #expect(report.written.isEmpty)
        #expect(report.declined == [
            ImageVariantDecline(name: "rotated.jpg.avif", reason: "its EXIF orientation is 6, not 1"),
            ImageVariantDecline(name: "profiled.jpg.avif", reason: "it embeds an ICC colour profile other than sRGB"),
            ImageVariantDecline(name: "animated.png.avif", reason: "an animated PNG"),
        ])
    }

    /// What real front-ends ship (Apache Superset 6.1.0: PNGs named `.jpg`, a JPEG named `.png`,
    /// JPEGs with an sRGB ICC profile) gets variants.
    @Test func mislabelledImagesAndJPEGsWithAnSRGBProfileGetVariants() throws {
        let source = try TemporaryDirectory()
        let staging = try TemporaryDirectory()
        let jpeg = Array(try #require(FileManager.default.contents(atPath: try Self.image("real.jpg", Self.photo + ["-quality", "92"], in: source).path)))
        let png = Array(try #require(FileManager.default.contents(atPath: try Self.image("real.png", Self.photo, in: source).path)))
        // An ICC v2 profile: an RGB header, one tag, `desc` naming sRGB as cameras and editors write it.
        let text = Array("sRGB IEC61966-2.1\0".utf8)
        var profile = [UInt8](repeating: 0, count: 128)
        profile.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        profile += bigEndian(1) + Array("desc".utf8) + bigEndian(144) + bigEndian(UInt32(12 + text.count))
        profile += Array("desc".utf8) + [0, 0, 0, 0] + bigEndian(UInt32(text.count)) + text
        let icc = Array("ICC_PROFILE\0".utf8) + [1, 1] + profile
        let segment: [UInt8] = [0xFF, 0xE2, UInt8((icc.count + 2) >> 8), UInt8((icc.count + 2) & 0xFF)] + icc
        var files: [BundleFile] = []
        for (name, bytes) in [("png-named.jpg", png), ("jpeg-named.png", jpeg),
                              ("srgb-profiled.jpg", Array(jpeg[..<2]) + segment + Array(jpeg[2...]))] {
            files.append(BundleFile(name: name, path: try source.write(bytes, to: name)))
        }
        let report = try ImageVariantEncoder.encode(files, into: staging.path, formats: [.webp])
        #expect(report.declined.isEmpty, "\(report.declined)")
        #expect(report.written.map(\.file.name) == ["png-named.jpg.webp", "jpeg-named.png.webp", "srgb-profiled.jpg.webp"])
    }

    @Test func aPictureAboveThePixelLimitIsRefusedBeforeItsPixelsAreAllocated() throws {
        let source = try TemporaryDirectory()
        for name in ["photo.png", "photo.jpg"] {
            let bytes = try #require(FileManager.default.contents(atPath: try Self.image(name, Self.photo, in: source).path))
            let failure = try #require(throws: ImageCodecFailure.self) {
                try DecodedImage.decode(Array(bytes), with: name.hasSuffix(".png") ? pkg_png_decode : pkg_jpeg_decode,
                                        maximumPixels: 640 * 480 - 1)
            }
            #expect(failure.status == PKG_IMAGE_TOO_LARGE)
            #expect(failure.reason == "640x480 is above the limit of 307199 pixels")
        }
    }

    @Test(.enabled(if: checker, "needs scikit-image and Pillow (scripts/setup --test)"))
    func ssimAgreesWithScikitImage() throws {
        let directory = try TemporaryDirectory()
        try Self.image("photo.png", Self.photo, in: directory)
        let photo = directory.path("photo.png")
        try Self.image("low.jpg", [photo, "-quality", "30"], in: directory)
        let pairs: [(String, [String])] = [
            ("blurred.png", [photo, "-blur", "0x1.2"]),
            ("noisy.png", [photo, "-seed", "2", "-attenuate", "0.6", "+noise", "Gaussian"]),
            ("jpeg.png", [directory.path("low.jpg")]),
            ("shifted.png", [photo, "-roll", "+3+2"]),
            ("darker.png", [photo, "-level", "0%,130%"]),
        ]
        for (name, arguments) in pairs {
            try Self.image(name, arguments, in: directory)
        }
        func decoded(_ path: String) throws -> DecodedImage {
            let bytes = try #require(FileManager.default.contents(atPath: path))
            return try DecodedImage.decode(Array(bytes), with: pkg_png_decode, maximumPixels: 1 << 20)
        }
        let original = try decoded(photo)
        #expect(original.ssim(against: original) == 1)
        for (name, _) in pairs {
            let ours = try #require(original.ssim(against: try decoded(directory.path(name))))
            let reference = try #require(Double(try Self.python("ssim", photo, directory.path(name))))
            #expect(abs(ours - reference) <= 0.002, "\(name): \(ours) vs scikit-image \(reference)")
            print("SSIM photo.png / \(name): \(ours), scikit-image \(reference)")
        }
    }
}

/// `value` as 4 bytes, most significant first.
private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
}

/// The CRC-32 a PNG chunk ends with (ISO 3309, over its type and data).
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
