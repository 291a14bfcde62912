import PkgCore

/// The names of the files in a publishing folder (`pack`'s OUT_DIR, or where `publish` copies it).
///
/// Two files are mutable by design and small: ``manifestName`` and ``timestampName``. Every
/// other file is named by the SHA-256 of its own bytes and never rewritten, so one caching rule
/// holds on any CDN: the two for seconds, the rest forever. A name says what its bytes are; bytes
/// that differ get another name. A snapshot is the one kind named by what it holds rather than by
/// its bytes: the SHA-256 of its signed payload, the name `timestamp.json` gives (TUF's consistent
/// snapshots), so a device that gets a timestamp and a manifest out of step fetches the manifest the
/// timestamp names.
///
/// ```
/// manifest.json  timestamp.json
/// zips/demo-1.1.0.<sha256>.zip
/// index/demo-1.1.0.<sha256>.json
/// deltas/<base tree>-<target tree>.<sha256>.pkgdelta
/// objects/ab/<sha256>
/// manifests/<sha256>.json          every manifest written, for `prune`'s grace period
/// snapshots/<sha256>.json          each signed manifest, named by its signed payload's SHA-256
/// .pkgctl-watch-demo.json          `fleet watch`'s state for package demo (never published)
/// ```
///
/// Temporary files (`.tmp-PID-NAME`, `.precompress.XXXXXX`) are ``PublishingFolder``'s debris:
/// the next holder of its exclusive lock removes them. The folder's lock is the directory itself.
public enum PublishedLayout {
    /// The manifest devices poll.
    public static let manifestName = "manifest.json"
    /// The online timestamp key's statement about the manifest.
    public static let timestampName = "timestamp.json"
    /// Folders of content-named files, each a class `prune` cleans.
    static let contentFolders = ["zips", "index", "deltas", objectsFolder, "manifests", snapshotsFolder]
    /// The folder of signed manifests named by their payloads (``snapshot(payloadSHA256:)``).
    static let snapshotsFolder = Timestamp.snapshotsFolder
    /// The folder of objects, fanned out by the first two hex digits of their names.
    static let objectsFolder = "objects"
    /// The prefix of the staging folder a `pack --precompress` or `--image-variants` fills.
    static let precompressPrefix = ".precompress"
    /// The prefix of `fleet watch`'s state files.
    static let watchPrefix = ".pkgctl-watch-"

    /// `fleet watch`'s state for package `name`.
    static func watchFile(name: String) -> String {
        watchPrefix + name + ".json"
    }

    /// Whether `name` (in a content folder, or at the top when `atTop`) is a temporary file or
    /// staging folder some run wrote on its way to a real name.
    static func isTemporary(_ name: String, atTop: Bool) -> Bool {
        name.hasPrefix(FileSystem.temporaryPrefix) || (atTop && name.hasPrefix(precompressPrefix + "."))
    }

    static func zip(name: String, version: String, sha256: String) -> String {
        "zips/\(name)-\(version).\(sha256).zip"
    }

    static func index(name: String, version: String, sha256: String) -> String {
        "index/\(name)-\(version).\(sha256).json"
    }

    static func delta(base: String, target: String, sha256: String) -> String {
        "deltas/\(base)-\(target).\(sha256).pkgdelta"
    }

    /// The archived copy of a manifest whose bytes hash to `sha256`.
    static func manifestArchive(sha256: String) -> String {
        "manifests/\(sha256).json"
    }

    /// The signed manifest whose payload hashes to `payloadSHA256`, the name a timestamp gives it.
    static func snapshot(payloadSHA256: String) -> String {
        Timestamp.snapshot(manifestSHA256: payloadSHA256)
    }

    /// The SHA-256 a content-named relative path says its bytes have; nil for any other name
    /// (the two mutable files, and the version-named zips and indexes earlier pkgctl wrote).
    static func namedDigest(of path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count >= 2, let file = components.last else { return nil }
        switch (components.first.map(String.init) ?? "", components.count) {
        case ("objects", 3):
            return String(file).isSHA256Hex && file.hasPrefix(components[1]) && components[1].count == 2 ? String(file) : nil
        case ("manifests", 2), (snapshotsFolder, 2):
            return digest(in: file, suffix: ".json", prefixed: false)
        case ("zips", 2):
            return digest(in: file, suffix: ".zip", prefixed: true)
        case ("index", 2):
            return digest(in: file, suffix: ".json", prefixed: true)
        case ("deltas", 2):
            return digest(in: file, suffix: ".pkgdelta", prefixed: true)
        default:
            return nil
        }
    }

    /// The 64 hex digits before `suffix`, after a `.` when `prefixed` (`NAME-VERSION.<sha>.zip`).
    private static func digest(in file: Substring, suffix: String, prefixed: Bool) -> String? {
        guard file.hasSuffix(suffix) else { return nil }
        let stem = file.dropLast(suffix.count)
        let digest = String(stem.suffix(64))
        guard digest.isSHA256Hex else { return nil }
        if !prefixed { return stem.count == 64 ? digest : nil }
        let rest = stem.dropLast(64)
        return rest.count >= 2 && rest.hasSuffix(".") ? digest : nil
    }
}
