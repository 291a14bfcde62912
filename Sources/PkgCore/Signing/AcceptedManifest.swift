import FoundationEssentials

/// The newest signed manifest a store accepted, as `pkgctl status` shows it.
public struct AcceptedManifest: Sendable, Hashable {
    /// Its sequence.
    public var sequence: UInt64
    /// When it expires: past it (beyond the clock skew) the device accepts neither it
    /// again nor a 304 standing for it, until the publisher re-signs.
    public var expires: Date
}
