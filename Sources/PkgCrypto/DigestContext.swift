import COpenSSL

/// One libcrypto SHA-256 context (`EVP_MD_CTX`), owned by ``SHA256``.
final class DigestContext {
    private let context: OpaquePointer

    init() {
        context = EVP_MD_CTX_new()!
        precondition(EVP_DigestInit_ex(context, sha256Algorithm, nil) == 1, "libcrypto could not start SHA-256")
    }

    private init(copying other: DigestContext) {
        context = EVP_MD_CTX_new()!
        precondition(EVP_MD_CTX_copy_ex(context, other.context) == 1, "libcrypto could not copy a SHA-256 context")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// A context in the same state, to go on from apart.
    func copy() -> DigestContext { DigestContext(copying: self) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "libcrypto could not hash")
    }

    /// The digest; this context is spent.
    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32, "libcrypto could not end SHA-256")
        return digest
    }
}

/// SHA-256 fetched from libcrypto's default provider once: OpenSSL 3 otherwise looks the
/// algorithm up again on every context it starts.
nonisolated(unsafe) let sha256Algorithm: OpaquePointer = EVP_MD_fetch(nil, "SHA256", nil)!
