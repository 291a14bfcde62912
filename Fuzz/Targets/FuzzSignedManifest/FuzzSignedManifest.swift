import FuzzSupport
import FoundationEssentials
import PkgCore

/// Signed manifests (DSSE envelopes) through `TrustPolicy.open` with one trusted key,
/// whose signed seeds (Fuzz/corpus/signed-manifest) the fuzzer mutates. An accepted
/// manifest is signed by that key and has `sequence` (at most `Manifest.maxSequence`)
/// and `expires`; an unsigned body is never accepted; neither the envelope nor its
/// payload has an object with a key twice (by `firstDuplicateKey`, written apart from
/// the parser's `StrictJSON`); and the manifest equals what the keyless policy (which
/// does not verify) reads from the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let unverified = try? TrustPolicy().open(bytes, source: "fuzz", now: SigningFixture.now)
    guard let opened = try? SigningFixture.policy.open(bytes, source: "fuzz", now: SigningFixture.now) else { return 0 }
    fuzzCheck(opened.isSigned, "accepted an unsigned manifest with a trusted key")
    fuzzCheck(opened.signedBy == [SigningFixture.key.id], "accepted signers \(opened.signedBy)")
    fuzzCheck(opened.manifest.sequence != nil && opened.manifest.expires != nil, "accepted a manifest without sequence or expires")
    fuzzCheck(opened.manifest.sequence! <= Manifest.maxSequence, "accepted sequence \(opened.manifest.sequence!)")
    let envelopeDuplicate = firstDuplicateKey(in: bytes)
    fuzzCheck(envelopeDuplicate == nil, "accepted an envelope with the key '\(envelopeDuplicate!)' twice in an object")
    let payload = SigningFixture.payload(of: bytes)
    fuzzCheck(payload != nil, "accepted an envelope whose payload this target cannot read")
    let payloadDuplicate = firstDuplicateKey(in: payload!)
    fuzzCheck(payloadDuplicate == nil, "accepted a payload with the key '\(payloadDuplicate!)' twice in an object")
    fuzzCheck(opened.manifest.expires!.timeIntervalSince(SigningFixture.now) >= -SigningFixture.policy.clockSkew,
              "accepted an expired manifest")
    fuzzCheck(unverified?.manifest == opened.manifest && unverified?.payloadSHA256 == opened.payloadSHA256,
              "the keyless policy reads another manifest from the same envelope")
    return 0
}

/// The trusted key of the signed seeds (made with `pkgctl keygen`; its private half was
/// not kept: to add signed seeds, make a new pair and replace this key and every seed).
enum SigningFixture {
    static let publicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEA2xGpNyylU8FbY2u4VkecnU6Ddy2wFk3qxi78VX+e5Cw=
        -----END PUBLIC KEY-----

        """
    /// A moment within the seeds' validity (they were signed to expire in 2036).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let key = fuzzTrustedKey(pem: publicKeyPEM)

    static let policy = TrustPolicy(trustedKeys: [key])

    /// The payload bytes of an envelope, read with `JSONDecoder` and `Data(base64Encoded:)`
    /// (an accepted envelope has one `payload`, so every reader sees the same one).
    static func payload(of envelope: [UInt8]) -> [UInt8]? { FuzzEnvelope.read(envelope)?.payloadBytes }
}

@main
enum FuzzSignedManifestMain {
    static func main() { runFuzzer(fuzzSignedManifest) }
}
