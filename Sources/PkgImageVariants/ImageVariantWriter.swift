import PkgCore
import PkgPublishing
import Synchronization

/// `pack --image-variants`: the bundle's AVIF and WebP siblings, written by
/// ``ImageVariantEncoder`` while ``Publisher`` packs, with the report of the last run kept for
/// the summary `pack` prints.
public final class ImageVariantWriter: BundleSiblingWriter {
    /// The formats written, where they pay.
    public let formats: [ImageFormat]
    private let lastReport = Mutex(ImageVariantReport())

    /// A writer of `formats`.
    public init(formats: [ImageFormat]) {
        self.formats = formats
    }

    /// What the last ``siblings(of:into:)`` wrote and declined.
    public var report: ImageVariantReport { lastReport.withLock { $0 } }

    public func siblings(of files: [BundleFile], into staging: String) throws -> [BundleFile] {
        let report = try ImageVariantEncoder.encode(files, into: staging, formats: formats)
        lastReport.withLock { $0 = report }
        return report.files
    }
}
