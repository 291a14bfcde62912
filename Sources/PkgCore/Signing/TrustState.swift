import FoundationEssentials

/// The newest signed manifest this store has accepted, persisted in
/// `ROOT/state/trust.json`: its sequence is the floor below which no manifest
/// is accepted again (replay of an old, perhaps vulnerable, release), and its
/// expiry tells whether a 304 may still stand for it.
struct TrustState: Codable, Sendable, Hashable {
    var sequence: UInt64
    var payloadSHA256: String
    var expires: Date

    static func load(_ layout: StoreLayout) throws -> TrustState? {
        try StateFile.load(TrustState.self, from: layout.trustState, what: "trust state")
    }

    func save(_ layout: StoreLayout) throws {
        try layout.prepare()
        try StateFile.save(self, to: layout.trustState)
    }

    /// Accepts a verified manifest when its sequence is not below the stored one
    /// (and, when equal, its payload is the same); records it as the new floor.
    static func accept(_ opened: OpenedManifest, source: String, layout: StoreLayout) throws {
        guard let sequence = opened.manifest.sequence, let expires = opened.manifest.expires else { return }
        if let stored = try load(layout) {
            if sequence < stored.sequence {
                throw PkgError(.untrustedManifest,
                               "manifest \(source): sequence \(sequence) is below \(stored.sequence), the newest this store "
                               + "accepted (an old manifest replayed?)")
            }
            if sequence == stored.sequence {
                guard opened.payloadSHA256 == stored.payloadSHA256 else {
                    throw PkgError(.untrustedManifest,
                                   "manifest \(source): sequence \(sequence) was accepted before with different content")
                }
                return
            }
        }
        try TrustState(sequence: sequence, payloadSHA256: opened.payloadSHA256, expires: expires).save(layout)
    }
}
