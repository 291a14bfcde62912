import FoundationEssentials
import PkgCrypto

/// A root of trust (TUF's root role): which keys hold each role, and how many of them must
/// sign, signed by a threshold of its own root keys. Devices start from one they are given
/// (`--trusted-root`) and follow newer ones in-band: version N + 1 is published as
/// `roots/N+1.json` beside the manifest, signed by a threshold of version N's root keys and
/// of its own, so a content or timestamp key is rotated without touching a device.
///
/// A DSSE envelope of payload type ``payloadType``, whose payload is:
///
/// ```json
/// { "version": 2, "expires": "2027-11-28T00:00:00Z",
///   "keys": { "<key id>": "<base64 of the 32 raw Ed25519 public key bytes>" },
///   "roles": { "root": { "keyids": ["…"], "threshold": 2 },
///              "content": { "keyids": ["…"], "threshold": 1 },
///              "timestamp": { "keyids": ["…"], "threshold": 1 } } }
/// ```
public struct RootDocument: Codable, Sendable, Hashable {
    /// The DSSE payload type of a root: no manifest or timestamp signature can pass as one.
    public static let payloadType = "application/vnd.pkgctl.root+json"
    /// Most bytes of one root read: a root lists a few keys.
    public static let maxSize = 64 * 1024
    /// Most newer roots one run follows: a chain past it is refused, not followed for ever.
    public static let maxWalk = 32
    /// The folder beside `manifest.json` holding every root by version.
    public static let folder = "roots"
    /// The three roles.
    public static let roleNames = ["root", "content", "timestamp"]

    /// Counts up by one from root to root.
    public var version: UInt64
    /// When devices stop accepting this root as their newest.
    public var expires: Date
    /// Every key a role names: id to base64 of the 32 raw public key bytes.
    public var keys: [String: String]
    /// `root`, `content` and `timestamp` (the last may name no key: no timestamp then).
    public var roles: [String: RootRole]

    /// A root of these fields, as the publisher writes it.
    public init(version: UInt64, expires: Date, keys: [TrustedKey], roles: [String: RootRole]) {
        self.version = version
        self.expires = expires
        self.keys = Dictionary(keys.map { ($0.id, Data($0.raw).base64EncodedString()) }, uniquingKeysWith: { first, _ in first })
        self.roles = roles
    }

    /// The path, relative to `manifest.json`, of root `version`.
    public static func path(version: UInt64) -> String { "\(folder)/\(version).json" }

    /// The keys of `role`; none when the role is absent.
    public func keys(of role: String) throws -> [TrustedKey] {
        try (roles[role]?.keyids ?? []).map { id in
            guard let text = keys[id], let raw = try? SignedEnvelope.decodeBase64(text),
                  let key = try? Ed25519PublicKey(raw: raw) else {
                throw PkgError(.untrustedRoot, "root \(version): role \(role) names key \(id.prefix(16)), which it does not list")
            }
            return TrustedKey(key: key)
        }
    }

    /// The threshold of `role` (1 when it is absent).
    public func threshold(of role: String) -> Int { roles[role]?.threshold ?? 1 }

    /// Parses a root payload: only these fields (``StrictJSON``), every key's id its hash,
    /// `root` and `content` roles with keys, thresholds each role's keys can meet, and no key
    /// both a content and a timestamp key.
    package static func parse(_ payload: [UInt8], source: String) throws -> RootDocument {
        do {
            try StrictJSON.check(payload, schema: .root)
        } catch {
            throw PkgError(.untrustedRoot, "root \(source): signed payload: \(error.reason)")
        }
        let root: RootDocument
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = InternetDate.decoding
            root = try decoder.decode(RootDocument.self, from: Data(payload))
        } catch let error as DecodingError {
            throw PkgError(.untrustedRoot, "root \(source): \(error.oneLineDescription)")
        }
        try root.validate(source: source)
        return root
    }

    /// Refuses a root whose fields do not hold together (see ``parse(_:source:)``).
    package func validate(source: String) throws {
        func refuse(_ reason: String) -> PkgError { PkgError(.untrustedRoot, "root \(source): \(reason)") }
        guard (1...UInt64(Manifest.maxSequence)).contains(version) else { throw refuse("version must be 1 to \(Manifest.maxSequence)") }
        for id in keys.keys {
            guard let raw = try? SignedEnvelope.decodeBase64(keys[id] ?? ""), raw.count == 32,
                  SHA256.hash(data: raw).hexString == id else {
                throw refuse("key \(String(id.prefix(16)).escapedForMessage) is not 32 base64 bytes whose SHA-256 is its id")
            }
        }
        for (name, role) in roles {
            guard Self.roleNames.contains(name) else { throw refuse("unknown role '\(name.escapedForMessage)'") }
            guard Set(role.keyids).count == role.keyids.count else { throw refuse("role \(name) lists a key twice") }
            guard role.keyids.allSatisfy({ keys[$0] != nil }) else { throw refuse("role \(name) names a key the root does not list") }
            guard (1...max(1, role.keyids.count)).contains(role.threshold) else {
                throw refuse("role \(name): threshold \(role.threshold) must be 1 to its number of keys (\(role.keyids.count))")
            }
        }
        for name in ["root", "content"] where roles[name]?.keyids.isEmpty ?? true {
            throw refuse("role \(name) names no key")
        }
        guard Set(roles["content"]?.keyids ?? []).isDisjoint(with: roles["timestamp"]?.keyids ?? []) else {
            throw refuse("a key is both a content and a timestamp key; give each role its own key")
        }
    }

    /// The payload as it is signed: sorted keys, a final newline.
    package func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = InternetDate.encoding
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }
}
