import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What must hold of a publishing folder whenever no command runs in it, however the last one
/// ended: read with the library's own parsers and the keys the test made.
enum PublishingFolderCheck {
    /// Throws, naming what is wrong, unless `folder`'s manifest verifies with `keys/release.pub`
    /// and has a sequence in `sequences`, its timestamp (if any) verifies with `keys/online.pub`,
    /// and every file the manifest can make a device fetch is there, a regular file of its size
    /// (its indexes read and hash-checked on the way). Returns the manifest's sequence.
    @discardableResult
    static func expectWhole(_ folder: String, keys: String, sequences: ClosedRange<UInt64>) throws -> UInt64 {
        let manifestPath = folder + "/" + PublishedLayout.manifestName
        let bytes = try #require(try FileSystem.read(manifestPath), "\(manifestPath) is missing")
        let release = try TrustedKey(file: keys + "/release.pub")
        let opened = try TrustPolicy(trustedKeys: [release]).open(bytes, source: manifestPath, now: Date())
        let sequence = try #require(opened.manifest.sequence)
        try #require(sequences.contains(sequence), "\(manifestPath): sequence \(sequence), not in \(sequences)")
        if let timestamp = try FileSystem.read(folder + "/" + PublishedLayout.timestampName) {
            let policy = TrustPolicy(trustedKeys: [release], timestampKeys: [try TrustedKey(file: keys + "/online.pub")])
            _ = try policy.openTimestamp(timestamp, source: folder + "/timestamp.json", now: Date())
        }
        for file in try ManifestReferences(manifest: bytes, in: folder).files {
            var info = stat()
            try #require(lstat(folder + "/" + file.path, &info) == 0, "\(file.path) is named yet missing")
            try #require(info.st_mode & S_IFMT == S_IFREG && file.size.map { $0 == UInt64(info.st_size) } ?? true,
                         "\(file.path) is not the regular file of its size")
        }
        return sequence
    }

    /// Every temporary file or staging folder anywhere under `folder` (`.tmp-*`, `.precompress.*`).
    static func temporaries(in folder: String) -> [String] {
        let walker = FileManager.default.enumerator(atPath: folder)
        var found: [String] = []
        while let path = walker?.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if name.hasPrefix(FileSystem.temporaryPrefix) || name.hasPrefix(PublishedLayout.precompressPrefix + ".") {
                found.append(path)
            }
        }
        return found
    }

    /// Each path under `folder` with its size: what changes when a command writes anything.
    static func listing(of folder: String) -> [String: Int] {
        let walker = FileManager.default.enumerator(atPath: folder)
        var sizes: [String: Int] = [:]
        while let path = walker?.nextObject() as? String {
            var info = stat()
            sizes[path] = lstat(folder + "/" + path, &info) == 0 ? Int(info.st_size) : -1
        }
        return sizes
    }
}
