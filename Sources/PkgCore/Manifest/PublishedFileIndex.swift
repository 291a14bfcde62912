import FoundationEssentials

/// The files of one published version, as `pack` writes it to
/// `OUT/index/NAME-VERSION.<sha256>.json` for per-file delta updates: each file's path,
/// SHA-256, size and mode. A file's content is the object
/// `OUT/objects/<first 2 hex digits>/<sha256>`. The manifest names the index by
/// its hash (``IndexReference``), so a signed manifest covers every byte.
public struct PublishedFileIndex: Codable, Sendable, Hashable {
    /// One file of the version.
    public struct File: Codable, Sendable, Hashable {
        /// Relative, `/`-separated path.
        public var path: String
        /// Lower-case hex SHA-256 of the content.
        public var sha256: String
        /// Size in bytes.
        public var size: UInt64
        /// Permission bits of the source file: 0o644, or 0o755 for an executable
        /// one. Informational: installed files are 0644, as from the zip.
        public var mode: UInt32
        /// Its deflated size in the version's zip: about what an origin serving objects
        /// with gzip sends, so a device weighs the objects as they travel. Optional.
        public var compressedSize: UInt64?

        /// A value of these fields, as the publisher writes it.
        package init(path: String, sha256: String, size: UInt64, mode: UInt32, compressedSize: UInt64? = nil) {
            self.path = path
            self.sha256 = sha256
            self.size = size
            self.mode = mode
            self.compressedSize = compressedSize
        }
    }

    /// The files, sorted by path.
    public var files: [File]

    /// The object's path relative to the publishing directory (and the manifest's URL).
    package static func objectPath(_ sha256: String) -> String {
        "objects/" + sha256.prefix(2) + "/" + sha256
    }

    /// The index as `FileIndex` records it for `verify`.
    package var fileIndex: FileIndex {
        FileIndex(files: Dictionary(uniqueKeysWithValues: files.map { ($0.path, FileIndex.Entry(size: $0.size, sha256: $0.sha256)) }))
    }

    /// Parses and checks an index as hostile input: every path must pass the
    /// rules zip entries pass (no absolute path, `..`, backslash, control
    /// character...), and none may repeat, differ from another only in case, or
    /// be both a file and a directory; hashes are SHA-256 hex, modes 644 or 755,
    /// and the limits on file count and total size hold. Errors name `label` and the path.
    package static func parse(_ bytes: [UInt8], label: String, limits: ExtractionLimits) throws -> PublishedFileIndex {
        func refuse(_ path: String?, _ reason: String) -> PkgError {
            PkgError(.unsafeEntry, "\(label): file index: " + (path.map { "'\($0.escapedForMessage)': " } ?? "") + reason)
        }
        let index: PublishedFileIndex
        do {
            index = try JSONDecoder().decode(PublishedFileIndex.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw refuse(nil, error.oneLineDescription)
        }
        try check(index, label: label, limits: limits)
        return index
    }

    /// The rules ``parse(_:label:limits:)`` applies, for an index built another way
    /// (from a tree delta). Errors name `label` and the path.
    static func check(_ index: PublishedFileIndex, label: String, limits: ExtractionLimits) throws {
        func refuse(_ path: String?, _ reason: String) -> PkgError {
            PkgError(.unsafeEntry, "\(label): file index: " + (path.map { "'\($0.escapedForMessage)': " } ?? "") + reason)
        }
        guard index.files.count <= limits.maxEntries else {
            throw refuse(nil, "\(index.files.count) files, more than the limit of \(limits.maxEntries)")
        }
        var total: UInt64 = 0
        var seen = Set<String>()
        var folded = Set<String>()
        var directories = Set<String>()
        for file in index.files {
            if case .failure(let refusal) = EntryName.validate(file.path) { throw refuse(file.path, refusal.reason) }
            if file.path.utf8.last == UInt8(ascii: "/") { throw refuse(file.path, "a directory, not a file") }
            guard seen.insert(file.path).inserted else { throw refuse(file.path, "duplicate path") }
            guard folded.insert(file.path.lowercased()).inserted else {
                throw refuse(file.path, "differs from another path only in case")
            }
            guard file.sha256.isSHA256Hex else { throw refuse(file.path, "sha256 must be 64 lower-case hex digits") }
            guard file.mode == 0o644 || file.mode == 0o755 else { throw refuse(file.path, "mode must be 644 or 755") }
            let (sum, overflow) = total.addingReportingOverflow(file.size)
            guard !overflow, sum <= limits.maxTotalUncompressedSize else {
                throw refuse(file.path, "files add up to more than the limit of \(limits.maxTotalUncompressedSize) bytes")
            }
            total = sum
            var parent = Substring(file.path)
            while let slash = parent.utf8.lastIndex(of: UInt8(ascii: "/")) {
                parent = parent[..<slash]
                directories.insert(String(parent))
            }
        }
        if let both = seen.first(where: directories.contains) {
            throw refuse(both, "is both a file and a directory")
        }
    }

    /// A value of these fields, as the publisher writes it.
    package init(files: [File]) {
        self.files = files
    }
}
