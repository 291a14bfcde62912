import Crypto
import FoundationEssentials

/// Which manifests a device accepts. With no trusted keys every well-formed
/// manifest is used as it comes (unauthenticated, as with schema v1), unless
/// the store has accepted a signed one before (then ``Updater`` refuses). With at
/// least one, a manifest is used only when it is a DSSE envelope of payload
/// type `application/vnd.pkgctl.manifest+json`, signed by ``threshold`` trusted keys, and
/// not expired; ``TrustState`` adds the sequence floor.
///
/// ```swift
/// let policy = TrustPolicy(trustedKeys: [try TrustedKey(file: "/etc/pkgctl/release.pub")])
/// let opened = try policy.open(body, source: url, now: Date())
/// ```
public struct TrustPolicy: Sendable {
    /// Keys whose signature makes a manifest trusted; ``threshold`` of them must sign.
    public var trustedKeys: [TrustedKey]
    /// How far past its expiry a manifest is still accepted, for devices whose clock runs slow.
    public var clockSkew: TimeInterval
    /// How many distinct trusted keys must sign a manifest (TUF's threshold), so one
    /// stolen key cannot publish alone; at least 1, at most the number of trusted keys.
    public var threshold: Int

    /// A policy trusting `trustedKeys` (none: unauthenticated), `threshold` of which must sign.
    public init(trustedKeys: [TrustedKey] = [], clockSkew: TimeInterval = 300, threshold: Int = 1) {
        self.trustedKeys = trustedKeys
        self.clockSkew = clockSkew
        self.threshold = threshold
    }

    /// Whether manifests must be signed.
    public var requiresSignature: Bool { !trustedKeys.isEmpty }

    /// The sorted ids of the trusted keys; a change of them invalidates cached validators.
    var keyIDs: [String] { trustedKeys.map(\.id).sorted() }

    /// Parses manifest bytes and, when keys are trusted, authenticates them.
    /// Every refusal is a ``PkgError`` with code `.untrustedManifest` naming `source`.
    public func open(_ body: [UInt8], source: String, now: Date) throws -> OpenedManifest {
        guard SignedEnvelope.looksLikeEnvelope(body) else {
            if requiresSignature {
                throw PkgError(.untrustedManifest,
                               "manifest \(source) is not signed, and trusted keys are configured")
            }
            return OpenedManifest(manifest: try Manifest.parse(body, source: source), isSigned: false, signedBy: [],
                                  payloadSHA256: SHA256.hash(data: body).hexString)
        }
        let envelope = try SignedEnvelope.parse(body, source: source)
        guard envelope.payloadType == SignedEnvelope.manifestPayloadType else {
            throw PkgError(.untrustedManifest, "manifest \(source): payload type '\(envelope.payloadType.escapedForMessage)' "
                           + "is not \(SignedEnvelope.manifestPayloadType)")
        }
        guard (1...max(1, trustedKeys.count)).contains(threshold) else {
            throw PkgError(.invalidArgument, "threshold \(threshold) must be 1 to the number of trusted keys (\(trustedKeys.count))")
        }
        let payload = envelope.payloadBytes
        let signedBy = try verifiedSigners(of: envelope, payload: payload, source: source)
        do {
            try StrictJSON.check(payload, schema: .manifest)
        } catch {
            throw PkgError(.untrustedManifest, "manifest \(source): signed payload: \(error.reason)")
        }
        let manifest = try Manifest.parse(payload, source: source)
        if requiresSignature {
            guard manifest.sequence != nil, let expires = manifest.expires else {
                throw PkgError(.untrustedManifest, "manifest \(source): signed payload lacks 'sequence' or 'expires'")
            }
            if now.timeIntervalSince(expires) > clockSkew {
                throw PkgError(.untrustedManifest,
                               "manifest \(source) expired at \(Self.format(expires)) (now \(Self.format(now))); "
                               + "the publisher must re-sign it (pkgctl sign)")
            }
        }
        return OpenedManifest(manifest: manifest, isSigned: true, signedBy: signedBy,
                              payloadSHA256: SHA256.hash(data: payload).hexString)
    }

    /// Ids of the trusted keys whose signatures verify. Signatures by other keys
    /// are ignored (a rotation adds one), but a signature naming a trusted key
    /// that does not verify refuses the manifest: it was changed after signing.
    private func verifiedSigners(of envelope: SignedEnvelope, payload: [UInt8], source: String) throws -> [String] {
        guard requiresSignature else { return [] }
        let message = SignedEnvelope.preAuthenticationEncoding(payloadType: envelope.payloadType, payload: payload)
        var verified: [String] = []
        for signature in envelope.signatures {
            guard let key = trustedKeys.first(where: { $0.id == signature.keyid }) else { continue }
            let bytes = (try? SignedEnvelope.decodeBase64(signature.sig)) ?? []
            guard key.isValidSignature(bytes, for: message) else {
                throw PkgError(.untrustedManifest,
                               "manifest \(source): signature by key \(key.shortID) does not verify (changed after signing?)")
            }
            if !verified.contains(key.id) { verified.append(key.id) }  // a key counts once toward the threshold
        }
        if !verified.isEmpty, verified.count < threshold {
            throw PkgError(.untrustedManifest,
                           "manifest \(source) is signed by \(verified.count) of the trusted keys; \(threshold) must sign it "
                           + "(signed by: \(verified.map { String($0.prefix(16)) }.joined(separator: ", ")))")
        }
        guard !verified.isEmpty else {
            let signers = envelope.signatures.map { String($0.keyid.prefix(16)).escapedForMessage }
            throw PkgError(.untrustedManifest,
                           "manifest \(source) is not signed by a trusted key (signed by: "
                           + "\(signers.isEmpty ? "none" : signers.joined(separator: ", ")); "
                           + "trusted: \(trustedKeys.map(\.shortID).joined(separator: ", ")))")
        }
        return verified
    }

    static func format(_ date: Date) -> String {
        date.formatted(.iso8601)
    }
}
