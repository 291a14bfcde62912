import FoundationEssentials

/// A root of trust (``RootDocument``) that verified, with the envelope bytes it came as: the
/// one a device is given (``init(file:)``), one it kept (`state/root.json`), or one it followed
/// in-band (``successor(_:source:)``). What the device trusts comes from it (``policy(clockSkew:)``).
///
/// ```swift
/// let root = try TrustedRoot(file: "/etc/pkgctl/root.json")
/// let updater = Updater(store: store, manifestURL: url, trustedRoot: root)
/// ```
public struct TrustedRoot: Sendable {
    /// The root's fields.
    public let document: RootDocument
    /// The signed envelope, as it is kept.
    let bytes: [UInt8]

    /// The version, for messages.
    public var version: UInt64 { document.version }

    /// Reads the root a device starts from: a root signed by a threshold of its own root keys.
    /// Its expiry is judged later, on the newest root a run reaches (``RootUpdate``).
    public init(file path: String) throws {
        try self.init(selfSigned: try Self.read(file: path), source: path)
    }

    /// The bytes of the root file `path`, refused when it is missing or past ``RootDocument/maxSize``.
    package static func read(file path: String) throws -> [UInt8] {
        guard let bytes = try FileSystem.read(path, limit: RootDocument.maxSize + 1) else {
            throw PkgError(.untrustedRoot, "root \(path): no such file")
        }
        guard bytes.count <= RootDocument.maxSize else {
            throw PkgError(.untrustedRoot, "root \(path): larger than \(RootDocument.maxSize) bytes")
        }
        return bytes
    }

    /// `bytes` as a root that needs only its own root keys (given, or kept by this store).
    package init(selfSigned bytes: [UInt8], source: String) throws {
        let (document, envelope) = try Self.open(bytes, source: source)
        try Self.checkSigned(envelope, by: document, source: source)
        self.document = document
        self.bytes = bytes
    }

    private init(document: RootDocument, bytes: [UInt8]) {
        self.document = document
        self.bytes = bytes
    }

    /// `bytes` (fetched from `source`) as the root after this one: version + 1, signed by a
    /// threshold of this root's root keys and by a threshold of its own (TUF §5.3.4).
    package func successor(_ bytes: [UInt8], source: String) throws -> TrustedRoot {
        let (next, envelope) = try Self.open(bytes, source: source)
        guard next.version == version + 1 else {
            throw PkgError(.untrustedRoot, "root \(source) has version \(next.version), not \(version + 1): "
                           + "a root may only follow the one before it")
        }
        try Self.checkSigned(envelope, by: document, source: source)
        try Self.checkSigned(envelope, by: next, source: source)
        return TrustedRoot(document: next, bytes: bytes)
    }

    /// Refuses a root that expired more than `clockSkew` before `now`: a device that cannot
    /// reach a newer one is frozen on it, and must say so (TUF §5.3.10).
    func checkNotExpired(now: Date, clockSkew: TimeInterval) throws {
        guard now.timeIntervalSince(document.expires) <= clockSkew else {
            throw PkgError(.untrustedRoot, "root \(version) expired at \(InternetDate.format(document.expires)) "
                           + "(now \(InternetDate.format(now))) and the origin offers no newer one; the publisher must "
                           + "sign a new root (pkgctl root)")
        }
    }

    /// What this root trusts: its content keys and threshold for manifests, its timestamp keys
    /// and threshold for `timestamp.json` (none: no timestamp is read).
    public func policy(clockSkew: TimeInterval = 300) throws -> TrustPolicy {
        TrustPolicy(trustedKeys: try document.keys(of: "content"), clockSkew: clockSkew,
                    threshold: document.threshold(of: "content"), timestampKeys: try document.keys(of: "timestamp"),
                    timestampThreshold: document.threshold(of: "timestamp"))
    }

    /// Parses a root envelope of the root payload type and its payload.
    package static func open(_ bytes: [UInt8], source: String) throws -> (RootDocument, SignedEnvelope) {
        let envelope: SignedEnvelope
        do {
            envelope = try SignedEnvelope.parse(bytes, source: source, what: "root")
        } catch let error as PkgError {
            throw PkgError(.untrustedRoot, error.message)
        }
        guard envelope.payloadType == RootDocument.payloadType else {
            throw PkgError(.untrustedRoot, "root \(source): payload type '\(envelope.payloadType.escapedForMessage)' "
                           + "is not \(RootDocument.payloadType)")
        }
        return (try RootDocument.parse(envelope.payloadBytes, source: source), envelope)
    }

    /// Refuses `envelope` unless a threshold of `root`'s root keys signed it.
    private static func checkSigned(_ envelope: SignedEnvelope, by root: RootDocument, source: String) throws {
        _ = try TrustPolicy.verifiedSigners(of: envelope, payload: envelope.payloadBytes, keys: try root.keys(of: "root"),
                                            threshold: root.threshold(of: "root"), what: "root \(source)",
                                            keyKind: "version \(root.version) root key", code: .untrustedRoot)
    }
}
