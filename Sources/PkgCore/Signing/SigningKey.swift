import PkgCrypto
import FoundationEssentials
import Glibc

/// An Ed25519 private key that signs manifests, read from or written to a
/// PKCS#8 PEM file (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey
/// -algorithm ed25519` writes it).
///
/// ```swift
/// let key = try SigningKey.generate(in: "keys", name: "release")   // keys/release.key + .pub
/// print(key.publicKey.id)
/// ```
public struct SigningKey: Sendable {
    private let key: Ed25519PrivateKey

    /// The 32-byte seed.
    var seed: [UInt8] { key.seed }

    /// The matching public key.
    public var publicKey: TrustedKey { TrustedKey(key: key.publicKey) }

    /// RFC 8410's PKCS#8 encoding of an Ed25519 private key is this fixed
    /// prefix followed by the 32-byte seed; nothing else is accepted.
    static let pkcs8Prefix: [UInt8] = [
        0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
    ]

    init(key: Ed25519PrivateKey) {
        self.key = key
    }

    /// Reads a private key file. Refuses a file that group or others can read
    /// (as ssh does), a public key, and anything but an Ed25519 PKCS#8 PEM.
    public init(file path: String) throws {
        let raw = try KeyFile.readRawKey(path, label: "PRIVATE KEY", derPrefix: Self.pkcs8Prefix,
                                         kind: "private key (PKCS#8)", otherLabel: "PUBLIC KEY",
                                         otherKindMessage: "is a public key; signing needs the private key (.key)")
        var info = stat()
        guard stat(path, &info) == 0 else { throw fileSystemError("stat", path) }
        if info.st_mode & 0o077 != 0 {
            throw PkgError(.invalidKey, "private key \(path) is accessible by others (mode "
                                               + String(info.st_mode & 0o777, radix: 8) + "); run chmod 600 on it")
        }
        guard let key = try? Ed25519PrivateKey(seed: raw) else {
            throw PkgError(.invalidKey, "\(path) is not an Ed25519 private key (PKCS#8)")
        }
        self.init(key: key)
    }

    /// Makes a new key pair and writes `DIR/NAME.key` (mode 0600) and
    /// `DIR/NAME.pub`; refuses to overwrite either.
    public static func generate(in directory: String, name: String = "release") throws -> SigningKey {
        guard ManifestEntry.isSafeComponent(name) else {
            throw PkgError(.invalidArgument, "key name '\(name.escapedForMessage)' must be 1-128 of [A-Za-z0-9._+-], not starting with '.'")
        }
        try FileSystem.makeDirectories(directory)
        let privatePath = directory + "/" + name + ".key"
        let publicPath = directory + "/" + name + ".pub"
        for path in [privatePath, publicPath] where FileSystem.exists(path) {
            throw PkgError(.invalidKey, "\(path) already exists; refusing to overwrite a key")
        }
        let signingKey = SigningKey(key: Ed25519PrivateKey())
        let privatePEM = PEMBlock(label: "PRIVATE KEY", der: Self.pkcs8Prefix + signingKey.seed)
        try FileSystem.createExclusively(Array((privatePEM.text + "\n").utf8), at: privatePath, mode: 0o600)
        do {
            try FileSystem.createExclusively(Array((signingKey.publicKey.pemString + "\n").utf8), at: publicPath, mode: 0o644)
        } catch {
            unlink(privatePath)
            throw error
        }
        return signingKey
    }

    /// The Ed25519 signature of `message`.
    func signature(for message: [UInt8]) -> [UInt8] {
        key.signature(for: message)
    }
}
