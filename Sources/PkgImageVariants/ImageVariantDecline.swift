/// A sibling ``ImageVariantEncoder`` considered and did not write, and why.
public struct ImageVariantDecline: Sendable, Hashable {
    /// The name the sibling would have had in the bundle.
    public var name: String
    /// One line: `saves under 10 % (2011 → 1920 bytes, quality 80)`, `a CMYK JPEG`, …
    public var reason: String
}
