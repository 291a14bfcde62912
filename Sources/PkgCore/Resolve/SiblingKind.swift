/// A kind of file a package may hold beside a file `X` as `X` plus a suffix, chosen per
/// request: a content coding (``ContentCoding``) or an image variant (``ImageVariant``).
protocol SiblingKind: Hashable, CaseIterable, Sendable where AllCases == [Self] {
    /// What the sibling's name adds to `X`'s.
    var fileSuffix: String { get }
}

extension ContentCoding: SiblingKind {}
extension ImageVariant: SiblingKind {}
