import FoundationEssentials
import PkgCore
import PkgPublishing

/// What the encoded siblings of a published version weigh, read back from its
/// index (those `pack --precompress` wrote and any the source had): for each
/// coding, how many files have one, their bytes, and the siblings' bytes.
struct PrecompressionSummary {
    var files: [ContentCoding: Int] = [:]
    var originalBytes: [ContentCoding: UInt64] = [:]
    var encodedBytes: [ContentCoding: UInt64] = [:]

    /// The summary for `entry` published in `directory`; nil when it has no index.
    init?(of entry: ManifestEntry, in directory: String) throws {
        guard let reference = entry.index else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + reference.url))
        let index = try JSONDecoder().decode(PublishedFileIndex.self, from: data)
        let sizes = Dictionary(uniqueKeysWithValues: index.files.map { ($0.path, $0.size) })
        for file in index.files where ContentCoding(ofEncodedName: file.path) == nil {
            for coding in ContentCoding.allCases {
                guard let size = sizes[file.path + coding.fileSuffix] else { continue }
                files[coding, default: 0] += 1
                originalBytes[coding, default: 0] += file.size
                encodedBytes[coding, default: 0] += size
            }
        }
    }

    /// `precompressed: br 2 files 1788 → 683 bytes (38.2 %), gzip 2 files 1788 → 942 bytes (52.7 %)`.
    var line: String {
        let parts = ContentCoding.allCases.compactMap { coding -> String? in
            guard let bytes = encodedBytes[coding], let original = originalBytes[coding] else { return nil }
            let share = original == 0 ? 0 : Double(bytes) * 100 / Double(original)
            let count = files[coding] ?? 0
            return "\(coding.rawValue) \(count) file\(count == 1 ? "" : "s") \(original) → \(bytes) bytes "
                + "(\(DecimalText.tenths(share)) %)"
        }
        return "precompressed: " + (parts.isEmpty ? "nothing" : parts.joined(separator: ", "))
    }
}
