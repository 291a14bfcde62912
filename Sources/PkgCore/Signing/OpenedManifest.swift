import FoundationEssentials

/// A manifest as ``TrustPolicy/open(_:source:now:)`` accepted it.
public struct OpenedManifest: Sendable {
    /// The manifest.
    public var manifest: Manifest
    /// Whether it came in a signed envelope (verified or not, see ``signedBy``).
    public var isSigned: Bool
    /// Ids of the trusted keys whose signatures verified; empty when unauthenticated.
    public var signedBy: [String]
    /// Hex SHA-256 of the signed payload (of the whole body when unsigned).
    public var payloadSHA256: String
}
