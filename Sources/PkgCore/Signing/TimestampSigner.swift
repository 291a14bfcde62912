import FoundationEssentials

/// Signs `timestamp.json` for the signed `manifest.json` beside it, with the
/// online timestamp key (`pkgctl timestamp`).
///
/// ```swift
/// let signer = TimestampSigner(keys: [try SigningKey(file: "keys/online.key")])
/// try signer.write(in: "out")   // out/timestamp.json names out/manifest.json
/// ```
public struct TimestampSigner: Sendable {
    /// The timestamp keys; each adds one signature.
    public var keys: [SigningKey]
    /// Seconds from signing until the timestamp expires.
    public var validity: TimeInterval

    /// A signer; `keys` must not be empty.
    public init(keys: [SigningKey], validity: TimeInterval = Timestamp.defaultValidity) {
        self.keys = keys
        self.validity = validity
    }

    /// Writes `DIRECTORY/timestamp.json` naming the signed `DIRECTORY/manifest.json`
    /// as it is now; returns what it states.
    @discardableResult
    public func write(in directory: String, now: Date = Date()) throws -> Timestamp {
        guard !keys.isEmpty else { throw PkgError(.invalidArgument, "a timestamp needs at least one key") }
        guard validity > 0 else { throw PkgError(.invalidArgument, "a timestamp must be valid for some time") }
        let manifestPath = directory + "/manifest.json"
        guard let bytes = try FileSystem.read(manifestPath) else {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) does not exist")
        }
        let opened = try TrustPolicy().open(bytes, source: manifestPath, now: .distantPast)
        guard opened.isSigned, let sequence = opened.manifest.sequence else {
            throw PkgError(.invalidArgument, "manifest \(manifestPath) is not signed; a timestamp vouches only for a "
                           + "signed manifest (pkgctl sign)")
        }
        let timestamp = Timestamp(
            manifestSHA256: opened.payloadSHA256, manifestSequence: sequence,
            expires: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + validity).rounded(.down)))
        let envelope = try SignedEnvelope.sign(payload: try timestamp.encoded(), payloadType: Timestamp.payloadType,
                                               keys: keys)
        try FileSystem.writeAtomically(try envelope.encoded(), to: directory + "/" + Timestamp.fileName)
        return timestamp
    }
}
