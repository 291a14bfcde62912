import FoundationEssentials
import Glibc
import PkgCore

/// A public key of a target's signed seeds, given as its SPKI PEM text (`pkgctl keygen`
/// writes it) and read by `TrustedKey(file:)` through a temporary file.
public func fuzzTrustedKey(pem: String) -> TrustedKey {
    var template = Array("/tmp/pkgctl-fuzz-key.XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    defer { unlink(path) }
    let bytes = Array(pem.utf8)
    guard fd >= 0, bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        fatalError("cannot write \(path)")
    }
    close(fd)
    do { return try TrustedKey(file: path) } catch { fatalError("trusted key: \(error)") }
}

/// A DSSE envelope as the targets' checks read it, with `JSONDecoder` and
/// `Data(base64Encoded:)`, apart from PkgCore's `SignedEnvelope`. Only `payload` is
/// required; the checks that need the others say so. Meant for envelopes the parser
/// accepted: each key is there once, so every reader sees the same value.
public struct FuzzEnvelope: Decodable {
    public struct Signature: Decodable {
        public var keyid: String
        public var sig: String
    }

    public var payloadType: String?
    public var payload: String
    public var signatures: [Signature]?

    /// The envelope in `bytes`, or nil when it cannot be read so.
    public static func read(_ bytes: [UInt8]) -> FuzzEnvelope? {
        try? JSONDecoder().decode(FuzzEnvelope.self, from: Data(bytes))
    }

    /// The payload's bytes, or nil when it is not base64.
    public var payloadBytes: [UInt8]? { Data(base64Encoded: payload).map { Array($0) } }
}
