import PkgCrypto
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
    /// Keys of the timestamp role: with any, every run also needs a `timestamp.json`
    /// signed by one of them that names the manifest and has not expired
    /// (``openTimestamp(_:source:now:)``). They can sign nothing else: a manifest
    /// signed by a timestamp key alone is refused. None: no timestamp is read.
    public var timestampKeys: [TrustedKey]
    /// How many distinct timestamp keys must sign a timestamp.
    public var timestampThreshold: Int

    /// A policy trusting `trustedKeys` (none: unauthenticated), `threshold` of which
    /// must sign, and requiring a timestamp by `timestampThreshold` of `timestampKeys` when there are any.
    public init(trustedKeys: [TrustedKey] = [], clockSkew: TimeInterval = 300, threshold: Int = 1,
                timestampKeys: [TrustedKey] = [], timestampThreshold: Int = 1) {
        self.trustedKeys = trustedKeys
        self.clockSkew = clockSkew
        self.threshold = threshold
        self.timestampKeys = timestampKeys
        self.timestampThreshold = timestampThreshold
    }

    /// Whether a timestamp is required.
    public var requiresTimestamp: Bool { !timestampKeys.isEmpty }

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
        try checkRoles()
        let payload = envelope.payloadBytes
        let signedBy = requiresSignature
            ? try Self.verifiedSigners(of: envelope, payload: payload, keys: trustedKeys, threshold: threshold,
                                  what: "manifest \(source)", keyKind: "trusted key")
            : []
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
                               "manifest \(source) expired at \(InternetDate.format(expires)) (now \(InternetDate.format(now))); "
                               + "the publisher must re-sign it (pkgctl sign)")
            }
        }
        return OpenedManifest(manifest: manifest, isSigned: true, signedBy: signedBy,
                              payloadSHA256: SHA256.hash(data: payload).hexString)
    }

    /// Checks `timestamp.json` bytes: a DSSE envelope of ``Timestamp/payloadType``
    /// signed by a timestamp key, its payload strict, not expired (within the clock skew).
    public func openTimestamp(_ body: [UInt8], source: String, now: Date) throws -> Timestamp {
        try checkRoles()
        let envelope = try SignedEnvelope.parse(body, source: source, what: "timestamp")
        guard envelope.payloadType == Timestamp.payloadType else {
            throw PkgError(.untrustedManifest, "timestamp \(source): payload type '\(envelope.payloadType.escapedForMessage)' "
                           + "is not \(Timestamp.payloadType)")
        }
        let payload = envelope.payloadBytes
        _ = try Self.verifiedSigners(of: envelope, payload: payload, keys: timestampKeys, threshold: timestampThreshold,
                                what: "timestamp \(source)", keyKind: "timestamp key")
        let timestamp = try Timestamp.parse(payload, source: source)
        if now.timeIntervalSince(timestamp.expires) > clockSkew {
            throw PkgError(.untrustedManifest,
                           "timestamp \(source) expired at \(InternetDate.format(timestamp.expires)) (now \(InternetDate.format(now))); "
                           + "the publisher must renew it (pkgctl timestamp)")
        }
        return timestamp
    }

    /// Refuses a policy whose roles make no sense: a threshold no set of trusted keys
    /// can meet, a key in both roles, or timestamp keys without content keys.
    private func checkRoles() throws {
        guard (1...max(1, trustedKeys.count)).contains(threshold) else {
            throw PkgError(.invalidArgument, "threshold \(threshold) must be 1 to the number of trusted keys (\(trustedKeys.count))")
        }
        guard (1...max(1, timestampKeys.count)).contains(timestampThreshold) else {
            throw PkgError(.invalidArgument, "timestamp threshold \(timestampThreshold) must be 1 to the number of timestamp keys "
                           + "(\(timestampKeys.count))")
        }
        guard Set(trustedKeys).isDisjoint(with: timestampKeys) else {
            throw PkgError(.invalidArgument, "a key is both a trusted (content) key and a timestamp key; give each role its own key")
        }
        guard !requiresTimestamp || requiresSignature else {
            throw PkgError(.invalidArgument, "timestamp keys need trusted keys: a timestamp vouches for a signed manifest")
        }
    }

    /// Ids of the `keys` whose signatures verify, at least `threshold` distinct ones.
    /// Signatures by other keys are ignored (a rotation adds one), but a signature
    /// naming one of `keys` that does not verify refuses the document: it was
    /// changed after signing. `what` names the document, `keyKind` the keys; refusals carry `code`.
    static func verifiedSigners(of envelope: SignedEnvelope, payload: [UInt8], keys: [TrustedKey], threshold: Int,
                                what: String, keyKind: String,
                                code: PkgError.Code = .untrustedManifest) throws -> [String] {
        let message = SignedEnvelope.preAuthenticationEncoding(payloadType: envelope.payloadType, payload: payload)
        var verified: [String] = []
        for signature in envelope.signatures {
            guard let key = keys.first(where: { $0.id == signature.keyid }) else { continue }
            let bytes = (try? SignedEnvelope.decodeBase64(signature.sig)) ?? []
            guard key.isValidSignature(bytes, for: message) else {
                throw PkgError(code,
                               "\(what): signature by key \(key.shortID) does not verify (changed after signing?)")
            }
            if !verified.contains(key.id) { verified.append(key.id) }  // a key counts once toward the threshold
        }
        if !verified.isEmpty, verified.count < threshold {
            throw PkgError(code,
                           "\(what) is signed by \(verified.count) of the \(keyKind)s; \(threshold) must sign it "
                           + "(signed by: \(verified.map { String($0.prefix(16)) }.joined(separator: ", ")))")
        }
        guard !verified.isEmpty else {
            let signers = envelope.signatures.map { String($0.keyid.prefix(16)).escapedForMessage }
            throw PkgError(code,
                           "\(what) is not signed by a \(keyKind) (signed by: "
                           + "\(signers.isEmpty ? "none" : signers.joined(separator: ", ")); "
                           + "\(keyKind)s: \(keys.map(\.shortID).joined(separator: ", ")))")
        }
        return verified
    }
}
