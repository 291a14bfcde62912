/// Bounds a bundle must stay within before anything is extracted (zip-bomb guards).
public struct ExtractionLimits: Sendable, Hashable {
    /// Most entries (files and directories) a bundle may hold.
    public var maxEntries: Int
    /// Most bytes all entries may expand to, summed.
    public var maxTotalUncompressedSize: UInt64
    /// Highest uncompressed-to-compressed size ratio any one entry may have.
    public var maxCompressionRatio: Double

    /// Creates limits; the defaults suit web bundles of up to a few hundred megabytes.
    public init(maxEntries: Int = 100_000,
                maxTotalUncompressedSize: UInt64 = 2 << 30,
                maxCompressionRatio: Double = 200) {
        self.maxEntries = maxEntries
        self.maxTotalUncompressedSize = maxTotalUncompressedSize
        self.maxCompressionRatio = maxCompressionRatio
    }
}
