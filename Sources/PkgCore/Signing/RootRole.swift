/// One role of a ``RootDocument``: the keys that hold it and how many of them must sign.
public struct RootRole: Codable, Sendable, Hashable {
    /// Ids of the keys (``TrustedKey/id``), each listed in the root's `keys`.
    public var keyids: [String]
    /// How many distinct keys of ``keyids`` must sign; 1 to their number.
    public var threshold: Int

    /// A role held by `keyids`, `threshold` of which must sign.
    public init(keyids: [String], threshold: Int) {
        self.keyids = keyids
        self.threshold = threshold
    }
}
