import FoundationEssentials

/// A DSSE envelope (the signing format of in-toto and Sigstore): the payload's
/// exact bytes in base64, its type, and signatures over
/// `PAE(payloadType, payload)`. Signing bytes, not parsed JSON, needs no
/// canonical form; the type inside the signed message stops a signature made
/// for another kind of document from being replayed as a manifest.
///
/// ```json
/// { "payloadType": "application/vnd.pkgctl.manifest+json",
///   "payload": "<base64 of the manifest JSON>",
///   "signatures": [ { "keyid": "<hex sha256 of the public key>", "sig": "<base64>" } ] }
/// ```
package struct SignedEnvelope: Codable, Sendable, Hashable {
    /// The payload type of a pkgctl manifest.
    package static let manifestPayloadType = "application/vnd.pkgctl.manifest+json"

    struct Signature: Codable, Sendable, Hashable {
        var keyid: String
        var sig: String
    }

    var payloadType: String
    var payload: String
    var signatures: [Signature]

    /// Whether a JSON document is shaped like an envelope rather than a plain manifest.
    static func looksLikeEnvelope(_ body: [UInt8]) -> Bool {
        struct Probe: Decodable {
            var payloadType: String?
            var payload: String?
            var signatures: [Signature]?
        }
        guard let probe = try? JSONDecoder().decode(Probe.self, from: Data(body)) else { return false }
        return probe.payloadType != nil || probe.payload != nil || probe.signatures != nil
    }

    /// DSSE's pre-authentication encoding: what each signature signs.
    static func preAuthenticationEncoding(payloadType: String, payload: [UInt8]) -> [UInt8] {
        let type = Array(payloadType.utf8)
        return Array("DSSEv1 \(type.count) ".utf8) + type + Array(" \(payload.count) ".utf8) + payload
    }

    /// An envelope over `payload` signed by every key in `keys`.
    package static func sign(payload: [UInt8], payloadType: String, keys: [SigningKey]) -> SignedEnvelope {
        let message = preAuthenticationEncoding(payloadType: payloadType, payload: payload)
        return SignedEnvelope(
            payloadType: payloadType,
            payload: Data(payload).base64EncodedString(),
            signatures: keys.map { Signature(by: $0, of: message) })
    }

    /// This envelope with `key`'s signature added, in place of one `key` made before.
    package func adding(signatureBy key: SigningKey) -> SignedEnvelope {
        let message = Self.preAuthenticationEncoding(payloadType: payloadType, payload: payloadBytes)
        var signed = self
        signed.signatures.removeAll { $0.keyid == key.publicKey.id }
        signed.signatures.append(Signature(by: key, of: message))
        return signed
    }

    /// The key ids its signatures name (not verified).
    package var keyIDs: [String] { signatures.map(\.keyid) }

    /// Parses an envelope; every field must be present, no key unknown or given twice
    /// (``StrictJSON``), and every base64 text canonical, so that no byte of the file
    /// can change without the result changing.
    /// `what` names the document in errors: `manifest` or `timestamp`.
    package static func parse(_ body: [UInt8], source: String, what: String = "manifest") throws -> SignedEnvelope {
        func malformed(_ reason: String) -> PkgError {
            PkgError(.untrustedManifest, "\(what) \(source): malformed signed envelope: \(reason)")
        }
        do {
            try StrictJSON.check(body, schema: .envelope)
        } catch {
            throw malformed(error.reason)
        }
        let envelope: SignedEnvelope
        do {
            envelope = try JSONDecoder().decode(SignedEnvelope.self, from: Data(body))
        } catch let error as DecodingError {
            throw malformed(error.oneLineDescription)
        } catch {
            throw malformed("\(error)")
        }
        guard (try? decodeBase64(envelope.payload)) != nil else { throw malformed("payload is not canonical base64") }
        for (index, signature) in envelope.signatures.enumerated() where (try? decodeBase64(signature.sig)) == nil {
            throw malformed("signatures[\(index)].sig is not canonical base64")
        }
        return envelope
    }

    /// The payload's bytes.
    package var payloadBytes: [UInt8] { (try? Self.decodeBase64(payload)) ?? [] }

    /// Standard base64 with padding, refusing any text that does not re-encode to itself
    /// (stray bits in the last character, whitespace, URL-safe letters).
    static func decodeBase64(_ text: String) throws -> [UInt8] {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else {
            throw PkgError(.untrustedManifest, "not canonical base64")
        }
        return Array(data)
    }

    /// The envelope as `manifest.json` carries it: sorted keys, indented, a final newline.
    package func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }
}

extension SignedEnvelope.Signature {
    /// `key`'s signature of `message` (the pre-authentication encoding), as an envelope lists it.
    init(by key: SigningKey, of message: [UInt8]) {
        self.init(keyid: key.publicKey.id, sig: Data(key.signature(for: message)).base64EncodedString())
    }
}
