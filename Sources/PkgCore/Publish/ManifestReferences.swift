import Crypto

/// Every file of a publishing folder that one manifest can make a device fetch: each
/// release's zip, index, the index's objects and its tree deltas, for the release the manifest
/// names and for its rollout's `previous`, and the manifest's own archived copy
/// (``PublishedLayout/manifestArchive(sha256:)``). Indexes are read from the folder, checked
/// against the manifest's hash, and parsed as hostile input. A URL with a scheme
/// (`https://cdn.example/…`) names a file elsewhere and is not listed; a relative URL that
/// could leave the folder (`..`, an absolute path, `%`, `?`, `#`, `\`, a control character)
/// is refused in one line.
public struct ManifestReferences: Sendable {
    /// One release the manifest names, and the files a device may fetch for it.
    public struct NamedRelease: Sendable, Hashable {
        /// The package.
        public let name: String
        /// The release's version.
        public let version: String
        /// Its zip, index, the index's objects and its deltas.
        public let files: [PublishedFile]
    }

    /// The files, each once, in the order a safe upload follows: objects, indexes, deltas,
    /// zips, then the manifest's archived copy.
    public private(set) var files: [PublishedFile] = []
    /// The releases the manifest names (as a package's release or a rollout's `previous`).
    public private(set) var releases: [NamedRelease] = []
    /// How many URLs named a file elsewhere (with a scheme), left out of ``files``.
    public private(set) var external = 0

    /// The files the manifest `bytes` (read from `source`, `folder/manifest.json` by default)
    /// names in `folder`. With `skippingMissingIndexes` (an archived manifest, whose older
    /// indexes may be pruned), an index that is not there adds no objects instead of failing.
    public init(manifest bytes: [UInt8], in folder: String, source: String? = nil,
                skippingMissingIndexes: Bool = false) throws {
        let source = source ?? folder + "/" + PublishedLayout.manifestName
        let manifest = try TrustPolicy().open(bytes, source: source, now: .distantPast).manifest
        var byKind: [PublishedFile.Kind: [PublishedFile]] = [:]
        var seen: Set<String> = []
        for entry in manifest.packages {
            for release in [Release(entry)] + (entry.rollout?.previous.map { [$0] } ?? []) {
                let label = "\(entry.name) \(release.version)"
                var named: [(String, String, UInt64, PublishedFile.Kind)] = [(release.url, release.sha256, release.size, .zip)]
                named += (release.deltas ?? []).map { ($0.url, $0.sha256, $0.size, .delta) }
                if let index = release.index { named.append((index.url, index.sha256, index.size, .index)) }
                var files: [(PublishedFile, PublishedFile.Kind)] = []
                for (url, sha256, size, kind) in named {
                    guard let path = try Self.localPath(url, source: source, label: label) else {
                        external += 1
                        continue
                    }
                    files.append((PublishedFile(path: path, sha256: sha256, size: size), kind))
                    guard kind == .index, let reference = release.index,
                          !skippingMissingIndexes || FileSystem.exists(folder + "/" + path) else { continue }
                    let index = try Self.readIndex(folder + "/" + path, reference: reference, label: label)
                    files += index.files.map {
                        (PublishedFile(path: PublishedFileIndex.objectPath($0.sha256), sha256: $0.sha256, size: $0.size), .object)
                    }
                }
                for (file, kind) in files where seen.insert(file.path).inserted { byKind[kind, default: []].append(file) }
                releases.append(NamedRelease(name: entry.name, version: release.version, files: files.map(\.0)))
            }
        }
        let digest = SHA256.hash(data: bytes).hexString
        let archive = PublishedFile(path: PublishedLayout.manifestArchive(sha256: digest), sha256: digest,
                                    size: UInt64(bytes.count))
        files = [.object, .index, .delta, .zip].flatMap { byKind[$0] ?? [] } + [archive]
    }

    /// The path inside the folder that `url` (relative to the manifest's URL) names; nil for a
    /// URL with a scheme. Refuses, naming `label`, a relative URL that could name anything else.
    public static func localPath(_ url: String, source: String, label: String) throws -> String? {
        if url.hasPrefix("https://") || url.hasPrefix("http://") { return nil }
        let refused = url.isEmpty || url.hasPrefix("/") || url.utf8.contains { byte in
            byte < 0x20 || byte == 0x7f || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?")
                || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: ":")
        } || url.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
        if refused {
            throw PkgError(.malformedManifest, "manifest \(source): \(label): url '\(url.escapedForMessage)' does not name "
                           + "a file of the publishing folder")
        }
        return url
    }

    /// The index at `path`, which must have the size and SHA-256 `reference` gives.
    private static func readIndex(_ path: String, reference: IndexReference, label: String) throws -> PublishedFileIndex {
        guard let bytes = try FileSystem.read(path, limit: Int(clamping: reference.size)) else {
            throw PkgError(.fileSystem, "\(path): missing (the index of \(label))")
        }
        guard UInt64(bytes.count) == reference.size, SHA256.hash(data: bytes).hexString == reference.sha256 else {
            throw PkgError(.checksumMismatch, "\(path): not the index the manifest names for \(label) (other size or SHA-256)")
        }
        return try PublishedFileIndex.parse(bytes, label: label, limits: ExtractionLimits())
    }
}
