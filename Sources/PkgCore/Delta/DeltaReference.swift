import FoundationEssentials

/// A published tree delta: everything a device running version `from` (with the
/// tree `base`) needs to build this entry's version (the tree `target`), in one file.
/// Listed in the manifest entry by hash, so a signed manifest covers every byte.
public struct DeltaReference: Codable, Sendable, Hashable {
    /// The version the delta starts from.
    public var from: String
    /// ``TreeDigest`` of the tree it starts from.
    public var base: String
    /// ``TreeDigest`` of the tree it builds.
    public var target: String
    /// URL of the delta file, absolute or relative to the manifest's.
    public var url: String
    /// Lower-case hex SHA-256 of the delta file.
    public var sha256: String
    /// Size of the delta file in bytes.
    public var size: UInt64

    /// Checks the hashes and the URL; `fail` makes the error naming the entry.
    func validate(_ fail: (String) -> PkgError) throws {
        guard ManifestEntry.isSafeComponent(from) else { throw fail("deltas: from '\(from.escapedForMessage)' is not a version") }
        for (field, value) in [("base", base), ("target", target), ("sha256", sha256)] where !value.isSHA256Hex {
            throw fail("deltas: \(field) must be 64 lower-case hex digits")
        }
        guard !url.isEmpty else { throw fail("deltas: url is empty") }
    }

    /// A value of these fields, as the publisher writes it.
    package init(from: String, base: String, target: String, url: String, sha256: String, size: UInt64) {
        self.from = from
        self.base = base
        self.target = target
        self.url = url
        self.sha256 = sha256
        self.size = size
    }
}
