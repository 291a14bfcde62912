import PkgCrypto
import PkgCore

/// Every file of a publishing folder that one manifest can make a device fetch: each
/// release's zip, index, the index's objects and its tree deltas, for the release the manifest
/// names and for its rollout's `previous`, and the manifest's own archived copy
/// (``PublishedLayout/manifestArchive(sha256:)``) and, when signed, its snapshot
/// (``PublishedLayout/snapshot(payloadSHA256:)``). Indexes are read from the folder, checked
/// against the manifest's hash, and parsed as hostile input. A URL with a scheme
/// (`https://cdn.example/…`) names a file elsewhere and is not listed; a relative URL that
/// could leave the folder or name a hidden file (`..`, an absolute path, a segment starting
/// with `.`, `%`, `?`, `#`, `\`, a control character) is refused in one line.
public struct ManifestReferences: Sendable {
    /// One release the manifest names, and the files a device may fetch for it.
    public struct NamedRelease: Sendable, Hashable {
        /// The package.
        public let name: String
        /// The release as the manifest lists it.
        public let release: Release
        /// Its zip, index, the index's objects and its deltas (those the folder holds).
        public let files: [PublishedFile]
        /// How many of its URLs name files elsewhere (with a scheme), left out of ``files``.
        public let external: Int
    }

    /// The files, each once, in the order a safe upload follows: objects, indexes, deltas,
    /// zips, then the manifest's archived copy and snapshot.
    public private(set) var files: [PublishedFile] = []
    /// The releases the manifest names (as a package's release or a rollout's `previous`).
    public private(set) var releases: [NamedRelease] = []
    /// The manifest's archived copy.
    public let archive: PublishedFile
    /// A signed manifest's snapshot, last of ``files``: its bytes under its payload's name.
    public let snapshot: PublishedFile?
    /// How many URLs named a file elsewhere (with a scheme), left out of ``files``.
    public var external: Int { releases.reduce(0) { $0 + $1.external } }

    /// The files the manifest `bytes` (read from `source`, `folder/manifest.json` by default)
    /// names in `folder`. With `skippingMissingIndexes` (an archived manifest, whose older
    /// indexes may be pruned), an index that is not there adds no objects instead of failing.
    public init(manifest bytes: [UInt8], in folder: String, source: String? = nil,
                skippingMissingIndexes: Bool = false) throws {
        let source = source ?? folder + "/" + PublishedLayout.manifestName
        let opened = try TrustPolicy().open(bytes, source: source, now: .distantPast)
        let manifest = opened.manifest
        var byKind: [PublishedFile.Kind: [PublishedFile]] = [:]
        var seen: Set<String> = []
        for entry in manifest.packages {
            for release in [Release(entry)] + (entry.rollout?.previous.map { [$0] } ?? []) {
                let (named, external) = try Self.files(of: release, name: entry.name, in: folder, source: source,
                                                       skippingMissingIndexes: skippingMissingIndexes)
                for (file, kind) in named where seen.insert(file.path).inserted { byKind[kind, default: []].append(file) }
                releases.append(NamedRelease(name: entry.name, release: release, files: named.map(\.0), external: external))
            }
        }
        let digest = SHA256.hash(data: bytes).hexString
        archive = PublishedFile(path: PublishedLayout.manifestArchive(sha256: digest), sha256: digest, size: UInt64(bytes.count))
        snapshot = opened.isSigned
            ? PublishedFile(path: PublishedLayout.snapshot(payloadSHA256: opened.payloadSHA256), sha256: digest,
                            size: UInt64(bytes.count))
            : nil
        files = [.object, .index, .delta, .zip].flatMap { byKind[$0] ?? [] } + [archive] + (snapshot.map { [$0] } ?? [])
    }

    /// The files of one `release` of package `name` in `folder` (its zip, deltas, index and the
    /// index's objects), with what each is, and how many of its URLs name files elsewhere.
    static func files(of release: Release, name: String, in folder: String, source: String,
                      skippingMissingIndexes: Bool = false) throws -> ([(PublishedFile, PublishedFile.Kind)], Int) {
        let label = "\(name) \(release.version)"
        var named: [(String, String, UInt64, PublishedFile.Kind)] = [(release.url, release.sha256, release.size, .zip)]
        named += (release.deltas ?? []).map { ($0.url, $0.sha256, $0.size, .delta) }
        if let index = release.index { named.append((index.url, index.sha256, index.size, .index)) }
        var files: [(PublishedFile, PublishedFile.Kind)] = [], external = 0
        for (url, sha256, size, kind) in named {
            guard let path = try localPath(url, source: source, label: label) else {
                external += 1
                continue
            }
            let file = PublishedFile(path: path, sha256: sha256, size: size)
            files.append((file, kind))
            guard kind == .index, !skippingMissingIndexes || FileSystem.exists(folder + "/" + path) else { continue }
            let index = try PublishedFileIndex.parse(try file.read(in: folder, namedBy: source), label: label,
                                                     limits: ExtractionLimits())
            files += index.files.map {
                (PublishedFile(path: PublishedFileIndex.objectPath($0.sha256), sha256: $0.sha256, size: $0.size), .object)
            }
        }
        return (files, external)
    }

    /// The path inside the folder that `url` (relative to the manifest's URL) names; nil for a
    /// URL with a scheme. Refuses, naming `label`, a relative URL that could name anything else.
    public static func localPath(_ url: String, source: String, label: String) throws -> String? {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") { return nil }
        let refused = url.isEmpty || url.hasPrefix("/") || url.utf8.contains { byte in
            byte < 0x20 || byte == 0x7f || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "?")
                || byte == UInt8(ascii: "#") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: ":")
        } || url.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0.hasPrefix(".") }
        if refused {
            throw PkgError(.malformedManifest, "manifest \(source): \(label): url '\(url.escapedForMessage)' does not name "
                           + "a file of the publishing folder")
        }
        return url
    }
}
