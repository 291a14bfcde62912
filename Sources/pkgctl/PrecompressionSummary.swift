import Foundation
import PkgCore

/// What `pack --precompress` saved, read back from the version's published index:
/// the files that got an encoded sibling, their size, and each coding's total.
struct PrecompressionSummary {
    var files = 0
    var originalBytes: UInt64 = 0
    var encodedBytes: [ContentCoding: UInt64] = [:]

    /// The summary for `entry` published in `directory`; nil when it has no index.
    init?(of entry: ManifestEntry, in directory: String) throws {
        guard let reference = entry.index else { return nil }
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + reference.url))
        let index = try JSONDecoder().decode(PublishedFileIndex.self, from: data)
        let sizes = Dictionary(uniqueKeysWithValues: index.files.map { ($0.path, $0.size) })
        for file in index.files where ContentCoding(ofEncodedName: file.path) == nil {
            var encoded = false
            for coding in ContentCoding.allCases {
                guard let size = sizes[file.path + coding.fileSuffix] else { continue }
                encodedBytes[coding, default: 0] += size
                encoded = true
            }
            if encoded {
                files += 1
                originalBytes += file.size
            }
        }
    }

    /// `precompressed 3 files, 61234 bytes: br 15012 (24.5 %), gz 18811 (30.7 %)`.
    var line: String {
        let parts = ContentCoding.allCases.compactMap { coding -> String? in
            guard let bytes = encodedBytes[coding] else { return nil }
            let share = originalBytes == 0 ? 0 : Double(bytes) * 100 / Double(originalBytes)
            return "\(coding.rawValue) \(bytes) (\(String(format: "%.1f", share)) %)"
        }
        return "precompressed \(files) files, \(originalBytes) bytes" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", "))
    }
}
