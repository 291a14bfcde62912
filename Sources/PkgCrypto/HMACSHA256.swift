import COpenSSL

/// HMAC-SHA256 (RFC 2104) over Debian's libcrypto.
public enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: 32)
        var length = 0
        let done = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, key.baseAddress, key.count,
                          message.baseAddress, message.count, &code, code.count, &length)
            }
        }
        precondition(done != nil && length == 32, "libcrypto could not compute HMAC-SHA256")
        return code
    }
}
