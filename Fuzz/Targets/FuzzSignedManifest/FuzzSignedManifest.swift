import FuzzSupport
import FoundationEssentials
import PkgCore
import Glibc

/// Signed manifests (DSSE envelopes) through `TrustPolicy.open` with one trusted key,
/// whose signed seeds (Fuzz/corpus/signed-manifest) the fuzzer mutates. An accepted
/// manifest is signed by that key and has `sequence` and `expires`; an unsigned body
/// is never accepted; and the manifest equals what the keyless policy (which does not
/// verify) reads from the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    let unverified = try? TrustPolicy().open(bytes, source: "fuzz", now: SigningFixture.now)
    guard let opened = try? SigningFixture.policy.open(bytes, source: "fuzz", now: SigningFixture.now) else { return 0 }
    fuzzCheck(opened.isSigned, "accepted an unsigned manifest with a trusted key")
    fuzzCheck(opened.signedBy == [SigningFixture.key.id], "accepted signers \(opened.signedBy)")
    fuzzCheck(opened.manifest.sequence != nil && opened.manifest.expires != nil, "accepted a manifest without sequence or expires")
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
        MCowBQYDK2VwAyEAr6x5ideWrxSRuPWeNHyTds4NTPf6MlpRcRd37dYIA0Q=
        -----END PUBLIC KEY-----

        """
    /// A moment within the seeds' validity (they were signed to expire in 2036).
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let key: TrustedKey = {
        var template = Array("/tmp/pkgctl-fuzz-key.XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = String(cString: template)
        defer { unlink(path) }
        let pem = Array(publicKeyPEM.utf8)
        guard fd >= 0, pem.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == pem.count else {
            fatalError("cannot write \(path)")
        }
        close(fd)
        do { return try TrustedKey(file: path) } catch { fatalError("trusted key: \(error)") }
    }()

    static let policy = TrustPolicy(trustedKeys: [key])
}

@main
enum FuzzSignedManifestMain {
    static func main() { runFuzzer(fuzzSignedManifest) }
}
