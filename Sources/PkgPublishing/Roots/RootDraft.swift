import FoundationEssentials
import PkgCore

/// A root of trust on the publisher's side (`pkgctl root`): made unsigned, signed by one root
/// key at a time (each on its own machine, for a threshold above one), then added to a
/// publishing folder as `roots/N.json` (``PublishingFolder/addRoot(_:)``).
///
/// ```swift
/// var draft = try RootDraft(document: RootDocument(version: 1, expires: inAYear, keys: keys, roles: roles))
/// try draft.sign(with: try SigningKey(file: "root-a.key"))
/// try draft.write(to: "root-1.json")
/// ```
public struct RootDraft: Sendable {
    /// What the root says.
    public let document: RootDocument
    /// The envelope, with the signatures made so far.
    var envelope: SignedEnvelope

    /// An unsigned root of `document`; refused when its fields do not hold together.
    public init(document: RootDocument) throws {
        try document.validate(source: "version \(document.version)")
        self.document = document
        envelope = SignedEnvelope.sign(payload: try document.encoded(), payloadType: RootDocument.payloadType, keys: [])
    }

    /// The root in `path`, signed or not.
    public init(file path: String) throws {
        (document, envelope) = try TrustedRoot.open(try TrustedRoot.read(file: path), source: path)
    }

    /// The envelope's bytes, as `roots/N.json` holds them.
    public func encoded() throws -> [UInt8] { try envelope.encoded() }

    /// Ids of the keys that signed it so far (not verified).
    public var signerIDs: [String] { envelope.keyIDs }

    /// Adds `key`'s signature. Refused unless `key` is a root key of this root or of
    /// `previous`, the root it follows (whose root keys must sign it too).
    public mutating func sign(with key: SigningKey, previous: RootDocument? = nil) throws {
        let id = key.publicKey.id
        let rootKeys = (document.roles["root"]?.keyids ?? []) + (previous?.roles["root"]?.keyids ?? [])
        guard rootKeys.contains(id) else {
            throw PkgError(.untrustedSigningKey, "key \(id.prefix(16)) is not a root key of root \(document.version)"
                           + (previous.map { " or of root \($0.version)" } ?? "") + "; sign with one of "
                           + Set(rootKeys).sorted().map { String($0.prefix(16)) }.joined(separator: ", "))
        }
        envelope = envelope.adding(signatureBy: key)
    }

    /// Writes the root to `path` atomically.
    public func write(to path: String) throws {
        try FileSystem.writeAtomically(try encoded(), to: path)
    }
}
