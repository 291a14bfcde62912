import Foundation

/// The validators of the last manifest whose every package was installed, so
/// the next run can ask the origin "changed since?" and stop at a 304.
struct ManifestState: Codable {
    var url: String
    var validators: HTTPValidators

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
