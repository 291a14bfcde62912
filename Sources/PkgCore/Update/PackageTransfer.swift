/// What an update run fetched for one package, and how long its update took: per kind of file
/// (``TransferMeter/Kind``: a tree delta, a file index and objects, a whole zip), the requests
/// and bytes, and their sums. In `pkgctl update --json` as each package's `transfer`.
public struct PackageTransfer: Sendable, Hashable, Codable {
    /// Per kind fetched (kinds not fetched are absent).
    public var kinds: [TransferMeter.Kind: TransferCount]
    /// Requests made for the package, each attempt counted.
    public var requests: Int
    /// Bytes received for the package.
    public var bytes: UInt64
    /// Seconds its update took: fetching, verifying and installing.
    public var seconds: Double

    /// The sums of `kinds`, for an update that took `seconds`.
    public init(kinds: [TransferMeter.Kind: TransferCount], seconds: Double) {
        self.kinds = kinds
        requests = kinds.values.reduce(0) { $0 + $1.requests }
        bytes = kinds.values.reduce(0) { $0 + $1.bytes }
        self.seconds = seconds
    }

    private enum CodingKeys: String, CodingKey {
        case delta, objects, zip, requests, bytes, seconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var kinds: [TransferMeter.Kind: TransferCount] = [:]
        for (key, kind) in [(CodingKeys.delta, TransferMeter.Kind.delta), (.objects, .objects), (.zip, .zip)] {
            kinds[kind] = try container.decodeIfPresent(TransferCount.self, forKey: key)
        }
        self.init(kinds: kinds, seconds: try container.decode(Double.self, forKey: .seconds))
    }

    /// `{"delta": {"requests": 1, "bytes": 5120}, "requests": 1, "bytes": 5120, "seconds": 0.21}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        for (key, kind) in [(CodingKeys.delta, TransferMeter.Kind.delta), (.objects, .objects), (.zip, .zip)] {
            try container.encodeIfPresent(kinds[kind], forKey: key)
        }
        try container.encode(requests, forKey: .requests)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(seconds, forKey: .seconds)
    }
}
