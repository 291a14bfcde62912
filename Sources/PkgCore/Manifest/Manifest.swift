import FoundationEssentials

/// The list of packages an origin publishes (schema v1, see the README).
///
/// ```json
/// { "schemaVersion": 1,
///   "packages": [ { "name": "demo", "version": "1.2.0", "url": "demo-1.2.0.zip",
///                   "sha256": "…", "size": 123456, "routes": ["www.example.com/app"] } ] }
/// ```
/// Unknown fields are ignored. A signed manifest is this JSON inside a
/// DSSE envelope (see ``TrustPolicy``), with ``sequence`` and ``expires`` set.
public struct Manifest: Codable, Sendable, Hashable {
    /// The schema versions this build understands: 1; 2 for a manifest with staged
    /// rollouts or revocations, which a build that would ignore them (and install a staged
    /// version everywhere) must refuse; 3 for one whose releases name host runtimes
    /// (``ManifestEntry/runtime``), which a build that would install a release built for
    /// another host must refuse.
    public static let supportedSchemaVersions = 1...3

    /// 1; 2 when an entry has a rollout or revoked versions; 3 when one names a runtime.
    public var schemaVersion: Int
    /// The published packages: a name once per runtime range (``ManifestEntry/runtime``).
    public var packages: [ManifestEntry]
    /// In a signed manifest: raised by every signing; a device never accepts one
    /// below the highest it has accepted (replay of an old release). At most
    /// ``maxSequence``.
    public var sequence: UInt64?

    /// The largest sequence accepted: 2^53 − 1, the largest integer every JSON reader
    /// (JavaScript's included) holds exactly. Far beyond any count of signings, yet a
    /// bound: a value past it is refused, never wrapped or trapped on.
    public static let maxSequence: UInt64 = (1 << 53) - 1
    /// In a signed manifest: when it stops being accepted (a frozen or replayed origin).
    public var expires: Date?

    /// A v1 manifest listing `packages`.
    public init(packages: [ManifestEntry] = []) {
        self.schemaVersion = 1
        self.packages = packages
    }

    /// Parses and validates manifest JSON; `source` names it in errors.
    public static func parse(_ data: some Collection<UInt8>, source: String) throws -> Manifest {
        let manifest: Manifest
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = InternetDate.decoding
            manifest = try decoder.decode(Manifest.self, from: Data(data))
        } catch let error as DecodingError {
            throw PkgError(.malformedManifest, "manifest \(source): \(error.oneLineDescription)")
        } catch {
            throw PkgError(.malformedManifest, "manifest \(source): \(error)")
        }
        try manifest.validate(source: source)
        return manifest
    }

    /// Checks the schema version, that names are unique and every entry is well formed.
    public func validate(source: String) throws {
        guard Self.supportedSchemaVersions.contains(schemaVersion) else {
            throw PkgError(.malformedManifest,
                           "manifest \(source): schemaVersion \(schemaVersion) is not supported (expected 1 to 3)")
        }
        if schemaVersion < 3, packages.contains(where: { $0.runtime != nil }) {
            throw PkgError(.malformedManifest,
                           "manifest \(source): 'runtime' needs schemaVersion 3, so older clients refuse it")
        }
        if schemaVersion < 2, packages.contains(where: { $0.rollout != nil || !$0.revoked.isEmpty }) {
            throw PkgError(.malformedManifest,
                           "manifest \(source): 'rollout' and 'revoked' need schemaVersion 2, so older clients refuse it")
        }
        if let sequence, sequence > Self.maxSequence {
            throw PkgError(.malformedManifest,
                           "manifest \(source): sequence \(sequence) is above the largest allowed, \(Self.maxSequence)")
        }
        var seen = Set<ReleaseSlot>()
        for entry in packages {
            try entry.validate(source: source)
            guard seen.insert(ReleaseSlot(entry)).inserted else {
                throw PkgError(.malformedManifest, "manifest \(source): package '\(entry.name)' is listed twice"
                               + (entry.runtime.map { " for runtime '\($0.escapedForMessage)'" } ?? ""))
            }
        }
    }

    /// Every version of `name` revoked by any of its releases, in the order first listed:
    /// a version revoked for one runtime range is revoked for all.
    public func revocations(of name: String) -> [String] {
        var revoked: [String] = []
        for version in packages.filter({ $0.name == name }).flatMap(\.revoked) where !revoked.contains(version) {
            revoked.append(version)
        }
        return revoked
    }

    /// The lowest schema version that describes these packages.
    package var requiredSchemaVersion: Int {
        if packages.contains(where: { $0.runtime != nil }) { return 3 }
        return packages.contains(where: { $0.rollout != nil || !$0.revoked.isEmpty }) ? 2 : 1
    }

    /// JSON with sorted keys and indentation, as `pkgctl pack` writes it.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = InternetDate.encoding
        return try encoder.encode(self)
    }
}

extension DecodingError {
    /// "packages[0].sha256: key not found" style text.
    var oneLineDescription: String {
        func path(_ context: Context) -> String {
            let keys = context.codingPath.map { key in
                key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
            }.joined()
            return keys.hasPrefix(".") ? String(keys.dropFirst()) : (keys.isEmpty ? "top level" : keys)
        }
        switch self {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "top level" ? "" : parent + ".")\(key.stringValue): missing"
        case .typeMismatch(let type, let context):
            return "\(path(context)): expected \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context)): expected \(type), found null"
        case .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(self)"
        }
    }
}
