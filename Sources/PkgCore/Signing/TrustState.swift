import FoundationEssentials

/// What this store has accepted of signed manifests, persisted in
/// `ROOT/state/trust.json`: the newest one (its expiry tells whether a 304 may
/// still stand for it) and, for each key that signed an accepted manifest, the
/// highest sequence it signed: the floor below which no manifest is accepted
/// again (replay of an old, perhaps vulnerable, release).
///
/// Floors belong to the keys that set them: only the floors of keys the device
/// still trusts count. A stolen key that signs an absurd sequence therefore
/// stops the fleet only until the key is rotated out (devices trust the new key
/// alone); the sequences the new key signs are then judged against its own floor.
struct TrustState: Codable, Sendable, Hashable {
    /// The highest sequence one key has signed, and that manifest's payload hash.
    struct Floor: Codable, Sendable, Hashable {
        var sequence: UInt64
        var payloadSHA256: String
    }

    /// The newest accepted manifest's sequence.
    var sequence: UInt64
    var payloadSHA256: String
    var expires: Date
    /// Floors by key id; absent in states written before floors were per key, whose
    /// one floor (``sequence``) then counts whatever keys are trusted.
    var floors: [String: Floor]?

    static func load(_ layout: StoreLayout) throws -> TrustState? {
        try StateFile.load(TrustState.self, from: layout.trustState, what: "trust state")
    }

    func save(_ layout: StoreLayout) throws {
        try layout.prepare()
        try StateFile.save(self, to: layout.trustState)
    }

    /// The floors that bind a device trusting `keyIDs`.
    func floors(trusting keyIDs: [String]) -> [Floor] {
        guard let floors else { return [Floor(sequence: sequence, payloadSHA256: payloadSHA256)] }
        return keyIDs.compactMap { floors[$0] }
    }

    /// Accepts a verified manifest when its sequence is not below the floor of any
    /// trusted key (and, when equal to one, its payload is that one's); records it
    /// as the floor of each key that signed it. `stored` is the state as ``load(_:)`` read it.
    static func accept(_ opened: OpenedManifest, source: String, trusting keyIDs: [String], stored: TrustState?,
                       layout: StoreLayout) throws {
        guard let sequence = opened.manifest.sequence, let expires = opened.manifest.expires else { return }
        for floor in stored?.floors(trusting: keyIDs) ?? [] {
            if sequence < floor.sequence {
                throw PkgError(.untrustedManifest,
                               "manifest \(source): sequence \(sequence) is below \(floor.sequence), the newest this store "
                               + "accepted from its trusted keys (an old manifest replayed?)")
            }
            if sequence == floor.sequence, opened.payloadSHA256 != floor.payloadSHA256 {
                throw PkgError(.untrustedManifest,
                               "manifest \(source): sequence \(sequence) was accepted before with different content")
            }
        }
        var floors = stored?.floors ?? [:]
        if let stored, stored.floors == nil {
            // A state from before per-key floors: its floor stays with the keys trusted now.
            for id in keyIDs { floors[id] = Floor(sequence: stored.sequence, payloadSHA256: stored.payloadSHA256) }
        }
        let floor = Floor(sequence: sequence, payloadSHA256: opened.payloadSHA256)
        for id in opened.signedBy where floors[id].map({ $0.sequence <= sequence }) ?? true { floors[id] = floor }
        let state = TrustState(sequence: sequence, payloadSHA256: opened.payloadSHA256, expires: expires, floors: floors)
        if state != stored { try state.save(layout) }
    }
}
