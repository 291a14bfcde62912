import FoundationEssentials

/// The validators of the last manifest whose every package was installed, so
/// the next run can ask the origin "changed since?" and stop at a 304. They
/// count only for the same URL, the same trusted keys and threshold, and the same host
/// runtime: after a host upgrade the unchanged manifest must be read again, as the
/// releases that fit have changed.
struct ManifestState: Codable {
    var url: String
    var validators: HTTPValidators
    /// Ids of the keys trusted when it was accepted (absent in states written before signing existed).
    var trustedKeyIDs: [String]?
    /// How many of them had to sign (absent: 1, as before thresholds existed).
    var threshold: Int?
    /// The host runtime the run stated (absent: none).
    var runtime: String?

    static func load(_ layout: StoreLayout) -> ManifestState? {
        guard let bytes = try? FileSystem.read(layout.manifestState) else { return nil }
        return try? JSONDecoder().decode(ManifestState.self, from: Data(bytes))
    }

    func save(_ layout: StoreLayout) throws {
        try FileSystem.writeAtomically(try JSONEncoder().encode(self), to: layout.manifestState)
    }

    static func clear(_ layout: StoreLayout) {
        try? FileSystem.removeTree(layout.manifestState)
    }
}
