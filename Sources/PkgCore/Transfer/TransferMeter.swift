import Synchronization

/// What an update's transfers cost, per kind of file: the requests made (each attempt, a
/// retry included) and the bytes received (headers and body, as they came over the wire,
/// before decoding). A ``Downloader`` made ``Downloader/metered(by:as:)`` adds each of its
/// transfers to one; `pkgctl update --json` reports it per package.
public final class TransferMeter: Sendable {
    /// What a transfer fetched.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The manifest and its timestamp.
        case manifest
        /// A tree delta.
        case delta
        /// A file index and the objects it names.
        case objects
        /// A whole zip.
        case zip
    }

    private let counts = Mutex<[Kind: TransferCount]>([:])

    /// A meter with nothing counted.
    public init() {}

    /// Counts one request of `kind` that received `bytes`.
    func record(_ kind: Kind, bytes: UInt64) {
        counts.withLock { $0[kind, default: TransferCount()].add(bytes: bytes) }
    }

    /// What was counted, per kind (kinds with no request are absent).
    public var counted: [Kind: TransferCount] { counts.withLock { $0 } }
}

/// Requests made and bytes received.
public struct TransferCount: Sendable, Hashable, Codable {
    /// Requests made, each attempt counted.
    public var requests = 0
    /// Bytes received: response headers and bodies as they came over the wire.
    public var bytes: UInt64 = 0

    /// Nothing yet.
    public init() {}

    mutating func add(bytes: UInt64) {
        requests += 1
        self.bytes += bytes
    }
}
