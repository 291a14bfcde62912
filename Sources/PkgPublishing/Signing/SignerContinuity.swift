import PkgCore

/// What keeps a signing command from stranding the fleet: the keys it signs with must include
/// one of those that signed the document it replaces, the keys devices trust now. Signing a
/// production manifest with the staging key alone would otherwise be accepted here and refused by
/// every device on every poll. A key is added by signing with the old and the new together, and
/// dropped once devices trust the new one (docs/SIGNING.md, Key rotation). The publisher cannot
/// know a device's threshold; with a threshold above 1, keep signing with as many trusted keys.
enum SignerContinuity {
    /// Refuses `keys` (``PkgError/Code/untrustedSigningKey``) when `signedNow` (the ids the
    /// current `document` is signed with; empty: unsigned) holds none of them.
    static func check(_ keys: [SigningKey], signedNow: [String], document: String) throws {
        let given = Set(keys.map(\.publicKey.id)), current = Set(signedNow)
        guard !current.isEmpty, given.isDisjoint(with: current) else { return }
        func names(_ ids: Set<String>) -> String { ids.sorted().map { String($0.prefix(16)) }.joined(separator: ", ") }
        throw PkgError(.untrustedSigningKey,
                       "\(document) is signed by \(names(current)), and the keys given (\(names(given))) include none of "
                       + "them: devices that trust those would refuse it on every poll; sign with \(names(current)) too "
                       + "(a new key is added by signing with both, the old one dropped once devices trust the new)")
    }
}
