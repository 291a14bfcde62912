import COpenSSL

/// An Ed25519 (RFC 8032) public key over Debian's libcrypto.
public struct Ed25519PublicKey: Sendable, Hashable {
    /// The 32 raw key bytes.
    public let raw: [UInt8]

    /// The key of these 32 bytes; throws ``Ed25519KeyError`` for any other length. (Whether they
    /// are a point on the curve is found when a signature is checked against them.)
    public init(raw: [UInt8]) throws {
        guard raw.count == 32 else { throw Ed25519KeyError(length: raw.count) }
        self.raw = raw
    }

    /// Whether `signature` is this key's signature of `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard signature.count == 64, let key = EVPKey(publicRaw: raw) else { return false }
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
