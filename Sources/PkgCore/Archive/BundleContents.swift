/// Validated listing of a bundle, produced by ``BundleExtractor/inspect()``
/// before anything is written.
///
/// Every name in it is a safe relative path, no two entries collide, and the
/// bundle is within its ``ExtractionLimits``. Pass it to
/// ``BundleExtractor/extract(_:into:workers:)`` of the same extractor.
public struct BundleContents: Sendable {
    /// Number of regular files the bundle holds.
    public let fileCount: Int
    /// Number of directories extraction creates, explicit or implied by a file's path.
    public let directoryCount: Int
    /// Sum of the sizes the files declare in the central directory.
    public let totalUncompressedSize: UInt64

    /// One regular file to extract.
    struct File: Sendable {
        /// The entry's index in the central directory.
        let index: UInt64
        /// Safe relative path, `/`-separated.
        let path: String
        /// Uncompressed size the central directory declares.
        let size: UInt64
    }

    /// The archive this listing was read from.
    let archivePath: String
    /// Files in central-directory order (sequential reads of the archive).
    let files: [File]
    /// Every directory to create, explicit or implied, parents before children.
    let directories: [String]

    init(archivePath: String, files: [File], directories: [String]) {
        self.archivePath = archivePath
        self.files = files
        self.directories = directories
        self.fileCount = files.count
        self.directoryCount = directories.count
        self.totalUncompressedSize = files.reduce(0) { $0 + $1.size }
    }
}
