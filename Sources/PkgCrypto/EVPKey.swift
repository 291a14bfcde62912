import COpenSSL

/// A libcrypto `EVP_PKEY` holding an Ed25519 key, for the length of one call.
final class EVPKey {
    let pointer: OpaquePointer

    /// The private key of a 32-byte seed.
    init(privateSeed seed: [UInt8]) {
        pointer = EVP_PKEY_new_raw_private_key_ex(nil, "ED25519", nil, seed, seed.count)!
    }

    /// The public key of 32 raw bytes, or nil when libcrypto refuses them.
    init?(publicRaw raw: [UInt8]) {
        guard let pointer = EVP_PKEY_new_raw_public_key_ex(nil, "ED25519", nil, raw, raw.count) else { return nil }
        self.pointer = pointer
    }

    deinit { EVP_PKEY_free(pointer) }
}
