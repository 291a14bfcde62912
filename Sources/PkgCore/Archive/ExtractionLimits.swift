/// Bounds a bundle must stay within before anything is extracted (zip-bomb guards).
public struct ExtractionLimits: Sendable, Hashable {
    /// Most entries (files and directories) a bundle may hold.
    public var maxEntries: Int
    /// Most bytes all entries may expand to, summed.
    public var maxTotalUncompressedSize: UInt64
    /// Highest uncompressed-to-compressed size ratio an entry of at least
    /// ``ratioCheckMinimumSize`` bytes may have.
    public var maxCompressionRatio: Double
    /// Uncompressed size from which ``maxCompressionRatio`` applies. Smaller
    /// entries cannot bomb anything (the total-size and entry-count limits
    /// still bound them), while a stylesheet of one repeated rule easily
    /// compresses 400:1; Apache POI's zip-bomb guard has the same grace size.
    public var ratioCheckMinimumSize: UInt64

    /// Creates limits; the defaults suit web bundles of up to a few hundred megabytes.
    public init(maxEntries: Int = 100_000,
                maxTotalUncompressedSize: UInt64 = 2 << 30,
                maxCompressionRatio: Double = 200, ratioCheckMinimumSize: UInt64 = 1 << 20) {
        self.maxEntries = maxEntries
        self.maxTotalUncompressedSize = maxTotalUncompressedSize
        self.maxCompressionRatio = maxCompressionRatio
        self.ratioCheckMinimumSize = ratioCheckMinimumSize
    }
}
