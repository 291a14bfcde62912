import FoundationEssentials
import PkgCore

/// Signs `timestamp.json` for the signed `manifest.json` beside it, with the
/// online timestamp key (`pkgctl timestamp`).
///
/// ```swift
/// let signer = TimestampSigner(keys: [try SigningKey(file: "keys/online.key")])
/// try signer.write(in: PublishingFolder("out"))   // out/timestamp.json names out/manifest.json
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

    /// Writes `timestamp.json` in `folder` naming its signed `manifest.json` as it is now, holding
    /// the folder's exclusive lock; returns what it states.
    @discardableResult
    public func write(in folder: PublishingFolder, now: Date = Date()) throws -> Timestamp {
        guard !keys.isEmpty else { throw PkgError(.invalidArgument, "a timestamp needs at least one key") }
        guard validity > 0 else { throw PkgError(.invalidArgument, "a timestamp must be valid for some time") }
        guard FileSystem.isDirectory(folder.root) else { throw folder.missingManifest() }
        return try folder.withLock(.exclusive) {
            guard let bytes = try FileSystem.read(folder.manifestPath) else { throw folder.missingManifest() }
            let opened = try TrustPolicy().open(bytes, source: folder.manifestPath, now: .distantPast)
            guard opened.isSigned, let sequence = opened.manifest.sequence else {
                throw PkgError(.invalidArgument, "manifest \(folder.manifestPath) is not signed; a timestamp vouches only "
                               + "for a signed manifest (pkgctl sign)")
            }
            if let root = try folder.newestRoot() {
                try SignerContinuity.check(keys, meet: "timestamp", of: root, document: "timestamp \(folder.timestampPath)")
            } else if let current = try FileSystem.read(folder.timestampPath) {
                let signedNow = (try? SignedEnvelope.parse(current, source: folder.timestampPath, what: "timestamp").keyIDs) ?? []
                try SignerContinuity.check(keys, signedNow: signedNow, document: "timestamp \(folder.timestampPath)")
            }
            let timestamp = Timestamp(
                manifestSHA256: opened.payloadSHA256, manifestSequence: sequence,
                expires: Date(timeIntervalSince1970: (now.timeIntervalSince1970 + validity).rounded(.down)))
            let envelope = SignedEnvelope.sign(payload: try timestamp.encoded(), payloadType: Timestamp.payloadType,
                                               keys: keys)
            try FileSystem.writeAtomically(try envelope.encoded(), to: folder.timestampPath)
            return timestamp
        }
    }
}
