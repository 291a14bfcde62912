import PkgCrypto
import FuzzSupport
import FoundationEssentials
import PkgCore

/// `timestamp.json` (DSSE envelopes of the timestamp role) through
/// `TrustPolicy.openTimestamp` with one content key and one timestamp key, whose signed
/// seeds (Fuzz/corpus/timestamp) the fuzzer mutates. An accepted timestamp has payload
/// type `application/vnd.pkgctl.timestamp+json` (so a manifest's envelope never passes
/// as one, and the same bytes are never also accepted as a manifest by `open`); a
/// signature by the timestamp key that verifies, by this target's own Ed25519 check over
/// DSSE's encoding, and none by it that does not (a content key's signature alone is
/// never enough); only known keys and none twice in any object of the envelope or
/// payload (`firstDuplicateKey`); `manifestSHA256` of 64 lower-case hex digits,
/// `manifestSequence` at most `Manifest.maxSequence`, not expired at the fixed clock
/// beyond the skew; and fields equal to what `JSONDecoder` reads from the payload.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimestamp(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let policy = TimestampFixture.policy, now = TimestampFixture.now
    let asManifest = try? policy.open(bytes, source: "fuzz", now: now)
    guard let timestamp = try? policy.openTimestamp(bytes, source: "fuzz", now: now) else { return 0 }
    fuzzCheck(asManifest == nil, "the same bytes were accepted as a manifest and as a timestamp")

    let envelopeDuplicate = firstDuplicateKey(in: bytes)
    fuzzCheck(envelopeDuplicate == nil, "accepted an envelope with the key '\(envelopeDuplicate!)' twice in an object")
    let envelope = FuzzEnvelope.read(bytes)
    fuzzCheck(envelope?.payloadType != nil && envelope?.signatures != nil,
              "accepted an envelope this target cannot read")
    let payloadType = envelope!.payloadType!, signatures = envelope!.signatures!
    fuzzCheck(Array(payloadType.utf8) == Array(Timestamp.payloadType.utf8), "accepted payload type '\(payloadType)'")
    let unknownEnvelopeKeys = TimestampFixture.keys(of: bytes).subtracting(["payloadType", "payload", "signatures"])
    fuzzCheck(unknownEnvelopeKeys.isEmpty, "accepted an envelope with keys \(unknownEnvelopeKeys.sorted())")
    let unknownSignatureKeys = TimestampFixture.signatureKeys(of: bytes).subtracting(["keyid", "sig"])
    fuzzCheck(unknownSignatureKeys.isEmpty, "accepted a signature with keys \(unknownSignatureKeys.sorted())")

    let payload = envelope!.payloadBytes
    fuzzCheck(payload != nil, "accepted an envelope whose payload this target cannot read")
    let payloadDuplicate = firstDuplicateKey(in: payload!)
    fuzzCheck(payloadDuplicate == nil, "accepted a payload with the key '\(payloadDuplicate!)' twice in an object")
    let payloadKeys = TimestampFixture.keys(of: payload!)
    fuzzCheck(payloadKeys == ["manifestSHA256", "manifestSequence", "expires"], "accepted payload keys \(payloadKeys.sorted())")

    let message = TimestampFixture.preAuthenticationEncoding(payloadType: payloadType, payload: payload!)
    let byTimestampKey = signatures.filter { $0.keyid.utf8.elementsEqual(TimestampFixture.timestampKey.id.utf8) }
    fuzzCheck(!byTimestampKey.isEmpty, "accepted a timestamp not signed by the timestamp key "
              + "(signed by \(signatures.map { String($0.keyid.prefix(16)) }))")
    for signature in byTimestampKey {
        fuzzCheck(TimestampFixture.timestampKeyVerifies(signature.sig, message),
                  "accepted a timestamp with a signature by the timestamp key that does not verify")
    }

    fuzzCheck(timestamp.manifestSHA256.utf8.count == 64
              && timestamp.manifestSHA256.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) },
              "accepted manifestSHA256 '\(timestamp.manifestSHA256)'")
    fuzzCheck(timestamp.manifestSequence <= Manifest.maxSequence, "accepted manifestSequence \(timestamp.manifestSequence)")
    fuzzCheck(timestamp.expires.timeIntervalSince(now) >= -policy.clockSkew,
              "accepted a timestamp expired at \(timestamp.expires.timeIntervalSince1970) (now \(now.timeIntervalSince1970))")
    let read = TimestampFixture.read(payload!)
    fuzzCheck(read?.manifestSHA256 == timestamp.manifestSHA256 && read?.manifestSequence == timestamp.manifestSequence
              && read?.expires == timestamp.expires, "the payload says \(String(describing: read)), accepted \(timestamp)")
    return 0
}

/// The keys of the signed seeds (made with `pkgctl keygen`; their private halves were not
/// kept: to add signed seeds, make new pairs and replace these keys and every seed).
enum TimestampFixture {
    /// The content (manifest) key, id `53f3a1ab…`: it signs `manifest-envelope.json` and
    /// the seeds that must not pass as timestamps.
    static let contentKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAywWcx907aZbidC+WVNNgRNwTZ9tzL4CctDuUWHiNu04=
        -----END PUBLIC KEY-----

        """
    /// The timestamp key, id `97ecd586…`.
    static let timestampKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAviEoV6iDv6FtJC1rEi1HbgkcoGWiHUKO722P4+tlPj0=
        -----END PUBLIC KEY-----

        """
    /// A moment within the seeds' validity (2027-01-15T08:00:00Z; they expire in 2036,
    /// except the expired ones and `expires-at-skew-edge.json`, 300 s before it).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let contentKey = fuzzTrustedKey(pem: contentKeyPEM)
    static let timestampKey = fuzzTrustedKey(pem: timestampKeyPEM)
    static let policy = TrustPolicy(trustedKeys: [contentKey], timestampKeys: [timestampKey])

    /// The timestamp key for PkgCrypto: the last 32 bytes of its SPKI (RFC 8410).
    static let timestampPublicKey: Ed25519PublicKey = {
        let body = timestampKeyPEM.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body), der.count == 44,
              let key = try? Ed25519PublicKey(raw: Array(der.suffix(32))) else {
            fatalError("timestamp key PEM")
        }
        guard SHA256.hash(data: key.raw).map({ ($0 < 16 ? "0" : "") + String($0, radix: 16) }).joined() == timestampKey.id else {
            fatalError("timestamp key id")
        }
        return key
    }()

    /// Whether `sig` (base64) is the timestamp key's signature of `message`.
    static func timestampKeyVerifies(_ sig: String, _ message: [UInt8]) -> Bool {
        guard let signature = Data(base64Encoded: sig) else { return false }
        return timestampPublicKey.isValidSignature(Array(signature), for: message)
    }

    /// DSSE's pre-authentication encoding, `DSSEv1 <len(type)> <type> <len(payload)> <payload>`.
    static func preAuthenticationEncoding(payloadType: String, payload: [UInt8]) -> [UInt8] {
        let type = Array(payloadType.utf8)
        return Array("DSSEv1 \(type.count) ".utf8) + type + Array(" \(payload.count) ".utf8) + payload
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The keys of a JSON object, unescaped.
    struct Keys: Decodable {
        var keys: Set<String>
        init(from decoder: any Decoder) throws {
            keys = Set(try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue))
        }
    }

    /// The top-level keys of the JSON object `bytes` (empty when it is not one).
    static func keys(of bytes: [UInt8]) -> Set<String> {
        (try? JSONDecoder().decode(Keys.self, from: Data(bytes)))?.keys ?? []
    }

    /// Every key of the objects in the envelope's `signatures`.
    static func signatureKeys(of envelope: [UInt8]) -> Set<String> {
        struct Signatures: Decodable { var signatures: [Keys] }
        let read = try? JSONDecoder().decode(Signatures.self, from: Data(envelope))
        return read?.signatures.reduce(into: Set<String>()) { $0.formUnion($1.keys) } ?? []
    }

    /// The payload as `JSONDecoder` reads it.
    struct Payload: Decodable {
        var manifestSHA256: String
        var manifestSequence: UInt64
        var expires: Date
    }

    static func read(_ payload: [UInt8]) -> Payload? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Payload.self, from: Data(payload))
    }
}

@main
enum FuzzTimestampMain {
    static func main() { runFuzzer(fuzzTimestamp) }
}
