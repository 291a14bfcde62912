import FoundationEssentials

/// The JSON files under `ROOT/state` (records, trust, trials): read and written
/// in one way, dates as ISO 8601, writes atomic.
enum StateFile {
    /// The value in `path`, nil when there is no file; a file that does not
    /// decode is a `.fileSystem` error naming `what` and the path.
    static func load<Value: Decodable>(_ type: Value.Type, from path: String, what: String) throws -> Value? {
        guard let bytes = try FileSystem.read(path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = InternetDate.decoding
        do {
            return try decoder.decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw PkgError(.fileSystem, "\(what) \(path) is unreadable: \(error.oneLineDescription)")
        } catch {
            throw PkgError(.fileSystem, "\(what) \(path) is unreadable: \(error)")
        }
    }

    /// Writes `value` to `path` atomically, keys sorted.
    static func save(_ value: some Encodable, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = InternetDate.encoding
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try FileSystem.writeAtomically(try encoder.encode(value), to: path)
    }
}
