import FoundationEssentials
import PkgCore

/// Signs manifests for publishing: raises the sequence, sets the expiry and
/// wraps the manifest in a DSSE envelope signed by every key.
///
/// ```swift
/// let signer = ManifestSigner(keys: [try SigningKey(file: "keys/release.key")])
/// try signer.resign(PublishingFolder("out"))       // what `pkgctl sign` does
/// ```
public struct ManifestSigner: Sendable {
    /// How long a signed manifest is accepted when no validity is given: 30 days.
    public static let defaultValidity: TimeInterval = 30 * 86_400

    /// The keys that sign; each adds one signature.
    public var keys: [SigningKey]
    /// Seconds from signing until the manifest expires.
    public var validity: TimeInterval

    /// A signer; `keys` must not be empty.
    public init(keys: [SigningKey], validity: TimeInterval = ManifestSigner.defaultValidity) {
        self.keys = keys
        self.validity = validity
    }

    /// The envelope bytes of `manifest` with its sequence raised by one and an
    /// expiry `validity` after `now`.
    public func sign(_ manifest: Manifest, now: Date = Date()) throws -> [UInt8] {
        guard !keys.isEmpty else { throw PkgError(.invalidArgument, "signing needs at least one key") }
        guard validity > 0 else { throw PkgError(.invalidArgument, "a signed manifest must be valid for some time") }
        let sequence = manifest.sequence ?? 0
        guard sequence < Manifest.maxSequence else {
            throw PkgError(.invalidArgument, "the manifest's sequence \(sequence) is at or past the largest allowed "
                           + "(\(Manifest.maxSequence)) and cannot be raised; sign a manifest of your own release history")
        }
        var signed = manifest
        signed.sequence = sequence + 1
        signed.expires = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + validity).rounded(.down))
        let payload = Array(try signed.encoded()) + [UInt8(ascii: "\n")]
        return try SignedEnvelope.sign(payload: payload, payloadType: SignedEnvelope.manifestPayloadType, keys: keys)
            .encoded()
    }

    /// Re-signs the manifest of the publishing folder `folder` in place (signed or not before),
    /// through its one transaction, holding its exclusive lock: a new sequence, a new expiry, and
    /// exactly these keys' signatures.
    @discardableResult
    public func resign(_ folder: PublishingFolder, now: Date = Date()) throws -> Manifest {
        guard FileSystem.isDirectory(folder.root) else { throw folder.missingManifest() }
        return try folder.withLock(.exclusive) {
            try folder.changeManifest(signer: self, now: now) { _ in }
            return try folder.readManifest().manifest
        }
    }
}
