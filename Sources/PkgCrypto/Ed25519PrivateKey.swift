import COpenSSL

/// An Ed25519 (RFC 8032) private key over Debian's libcrypto, kept as its 32-byte seed.
public struct Ed25519PrivateKey: Sendable {
    /// The 32-byte seed the key is made from.
    public let seed: [UInt8]

    /// A new key from libcrypto's random generator.
    public init() {
        var seed = [UInt8](repeating: 0, count: 32)
        precondition(RAND_bytes(&seed, Int32(seed.count)) == 1, "libcrypto's random generator failed")
        self.seed = seed
    }

    /// The key of `seed`; throws ``Ed25519KeyError`` unless it is 32 bytes.
    public init(seed: [UInt8]) throws {
        guard seed.count == 32 else { throw Ed25519KeyError(length: seed.count) }
        self.seed = seed
    }

    /// The matching public key.
    public var publicKey: Ed25519PublicKey {
        let key = EVPKey(privateSeed: seed)
        var raw = [UInt8](repeating: 0, count: 32)
        var length = raw.count
        precondition(EVP_PKEY_get_raw_public_key(key.pointer, &raw, &length) == 1 && length == 32,
                     "libcrypto could not derive an Ed25519 public key")
        return try! Ed25519PublicKey(raw: raw)
    }

    /// The 64-byte signature of `message`.
    public func signature(for message: [UInt8]) -> [UInt8] {
        let key = EVPKey(privateSeed: seed)
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = signature.count
        let signed = EVP_DigestSignInit_ex(context, nil, nil, nil, nil, key.pointer, nil) == 1
            && EVP_DigestSign(context, &signature, &length, message, message.count) == 1
        precondition(signed && length == 64, "libcrypto could not sign with Ed25519")
        return signature
    }
}

/// A key of the wrong length.
public struct Ed25519KeyError: Error, Sendable {
    /// The length that was given.
    public let length: Int
}
