import PkgCrypto
import FoundationEssentials

/// An Ed25519 public key that manifests may be signed by, read from an SPKI
/// PEM file (`-----BEGIN PUBLIC KEY-----`, as `openssl pkey -pubout` writes it).
///
/// Its ``id`` is the lower-case hex SHA-256 of the 32 raw key bytes: what a
/// signed manifest names as `keyid`.
public struct TrustedKey: Sendable, Hashable {
    private let key: Ed25519PublicKey

    /// The 32 raw key bytes.
    var raw: [UInt8] { key.raw }

    /// The key id: hex SHA-256 of the raw public key.
    public let id: String

    /// RFC 8410's SubjectPublicKeyInfo of an Ed25519 key: this fixed prefix,
    /// then the 32 key bytes.
    static let spkiPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    init(key: Ed25519PublicKey) {
        self.key = key
        self.id = SHA256.hash(data: key.raw).hexString
    }

    /// Reads a public key file; refuses a private key and anything but an Ed25519 SPKI PEM.
    public init(file path: String) throws {
        let raw = try KeyFile.readRawKey(
            path, label: "PUBLIC KEY", derPrefix: Self.spkiPrefix, kind: "public key (SubjectPublicKeyInfo)",
            otherLabel: "PRIVATE KEY",
            otherKindMessage: "is a private key; trust the public key (.pub) instead, and keep the private one off devices")
        guard let key = try? Ed25519PublicKey(raw: raw) else {
            throw PkgError(.invalidKey, "\(path) is not an Ed25519 public key (SubjectPublicKeyInfo)")
        }
        self.init(key: key)
    }

    /// The key as an SPKI PEM document.
    var pemString: String {
        PEMBlock(label: "PUBLIC KEY", der: Self.spkiPrefix + raw).text
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        key.isValidSignature(signature, for: message)
    }

    /// The first 16 hex digits of the id, for messages.
    var shortID: String { String(id.prefix(16)) }

    /// Two keys are equal when their ids are.
    public static func == (lhs: TrustedKey, rhs: TrustedKey) -> Bool { lhs.id == rhs.id }

    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
