import FoundationEssentials

/// A freshness statement (TUF's timestamp role): "the current manifest is the
/// one whose signed payload hashes to ``manifestSHA256``, and this holds until
/// ``expires``". It is signed by an online key that can sign nothing else, so the
/// key that signs content can stay offline while the timestamp is renewed daily.
///
/// Published as `timestamp.json` beside `manifest.json`, a DSSE envelope of
/// payload type ``payloadType``:
///
/// ```json
/// { "expires": "2026-11-26T10:00:00Z", "manifestSequence": 12,
///   "manifestSHA256": "<hex SHA-256 of manifest.json's signed payload>" }
/// ```
public struct Timestamp: Codable, Sendable, Hashable {
    /// The DSSE payload type of a timestamp; a manifest's signature cannot pass as one.
    public static let payloadType = "application/vnd.pkgctl.timestamp+json"
    /// How long a timestamp is accepted when no validity is given: one day.
    public static let defaultValidity: TimeInterval = 86_400
    /// Most bytes of `timestamp.json` read: it is a few hundred.
    public static let maxSize = 16 * 1024
    /// The file name beside `manifest.json`.
    public static let fileName = "timestamp.json"
    /// The folder beside `manifest.json` that keeps each signed manifest under its payload's
    /// SHA-256 (TUF's consistent snapshots): what a timestamp names stays there, whatever
    /// `manifest.json` says by the time a device (or a CDN's copy of it) reads it.
    public static let snapshotsFolder = "snapshots"

    /// The path, relative to `manifest.json`, of the signed manifest whose payload hashes to `manifestSHA256`.
    public static func snapshot(manifestSHA256: String) -> String {
        "\(snapshotsFolder)/\(manifestSHA256).json"
    }

    /// Lower-case hex SHA-256 of the current manifest's signed payload.
    public var manifestSHA256: String
    /// That manifest's sequence, for messages.
    public var manifestSequence: UInt64
    /// When devices stop accepting this statement.
    public var expires: Date

    /// Parses a timestamp payload: only these three fields, each once (``StrictJSON``).
    package static func parse(_ payload: [UInt8], source: String) throws -> Timestamp {
        do {
            try StrictJSON.check(payload, schema: .timestamp)
        } catch {
            throw PkgError(.untrustedManifest, "timestamp \(source): signed payload: \(error.reason)")
        }
        let timestamp: Timestamp
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = InternetDate.decoding
            timestamp = try decoder.decode(Timestamp.self, from: Data(payload))
        } catch let error as DecodingError {
            throw PkgError(.untrustedManifest, "timestamp \(source): \(error.oneLineDescription)")
        }
        guard timestamp.manifestSHA256.isSHA256Hex, timestamp.manifestSequence <= Manifest.maxSequence else {
            throw PkgError(.untrustedManifest, "timestamp \(source): manifestSHA256 must be 64 lower-case hex digits "
                           + "and manifestSequence at most \(Manifest.maxSequence)")
        }
        return timestamp
    }

    /// The payload as it is signed: sorted keys, a final newline.
    package func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = InternetDate.encoding
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }

    /// A value of these fields, as the publisher writes it.
    package init(manifestSHA256: String, manifestSequence: UInt64, expires: Date) {
        self.manifestSHA256 = manifestSHA256
        self.manifestSequence = manifestSequence
        self.expires = expires
    }
}
