import PkgCore

/// What keeps a signing command from stranding the fleet: the keys it signs with must include
/// one of those that signed the document it replaces, the keys devices trust now. Signing a
/// production manifest with the staging key alone would otherwise be accepted here and refused by
/// every device on every poll. A key is added by signing with the old and the new together, and
/// dropped once devices trust the new one (docs/SIGNING.md, Key rotation). The publisher cannot
/// know a device's threshold; with a threshold above 1, keep signing with as many trusted keys.
/// With a root of trust in the folder (`roots/`), the root says it: the keys must meet its threshold
/// for the role, and a change of keys goes through a new root.
enum SignerContinuity {
    /// Refuses `keys` (``PkgError/Code/untrustedSigningKey``) when `signedNow` (the ids the
    /// current `document` is signed with; empty: unsigned) holds none of them.
    static func check(_ keys: [SigningKey], signedNow: [String], document: String) throws {
        let given = Set(keys.map(\.publicKey.id)), current = Set(signedNow)
        guard !current.isEmpty, given.isDisjoint(with: current) else { return }
        throw PkgError(.untrustedSigningKey,
                       "\(document) is signed by \(names(current)), and the keys given (\(names(given))) include none of "
                       + "them: devices that trust those would refuse it on every poll; sign with \(names(current)) too "
                       + "(a new key is added by signing with both, the old one dropped once devices trust the new)")
    }

    /// Refuses `keys` (``PkgError/Code/untrustedSigningKey``) unless they include the threshold
    /// of `root`'s keys for `role` (`content` or `timestamp`), naming the keys that would do.
    static func check(_ keys: [SigningKey], meet role: String, of root: TrustedRoot, document: String) throws {
        let given = Set(keys.map(\.publicKey.id)), held = Set(root.document.roles[role]?.keyids ?? [])
        let threshold = root.document.threshold(of: role)
        guard given.intersection(held).count < threshold else { return }
        throw PkgError(.untrustedSigningKey,
                       "\(document): root \(root.version) takes \(threshold) of its \(role) keys (\(names(held))), and the keys "
                       + "given (\(names(given))) hold \(given.intersection(held).count): devices following that root would "
                       + "refuse it on every poll; sign with its keys, or change them with a new root (pkgctl root rotate)")
    }

    private static func names(_ ids: Set<String>) -> String {
        ids.isEmpty ? "none" : ids.sorted().map { String($0.prefix(16)) }.joined(separator: ", ")
    }
}
