import PkgCore
import PkgPublishing
import PkgImageVariants

/// The line `pack --image-variants` prints: per format, how many images got a variant and
/// what they weigh against their originals, and how many were declined (with the first reason).
struct ImageVariantSummary {
    let report: ImageVariantReport

    /// `image variants: avif 3 files 91204 → 30114 bytes (33.0 %), webp 3 files 91204 → 41877 bytes (45.9 %); declined 1 (img/x.png.avif: ...)`.
    var line: String {
        let parts = ImageFormat.allCases.compactMap { format -> String? in
            let written = report.written.filter { $0.format == format }
            guard !written.isEmpty else { return nil }
            let original = written.reduce(0) { $0 + $1.originalSize }, bytes = written.reduce(0) { $0 + $1.size }
            let share = original == 0 ? 0 : Double(bytes) * 100 / Double(original)
            return "\(format.rawValue) \(written.count) file\(written.count == 1 ? "" : "s") \(original) → \(bytes) bytes "
                + "(\(DecimalText.tenths(share)) %)"
        }
        var line = "image variants: " + (parts.isEmpty ? "none" : parts.joined(separator: ", "))
        if let first = report.declined.first {
            line += "; declined \(report.declined.count) (\(first.name.escapedForMessage): \(first.reason))"
        }
        return line
    }
}
