/// The `/`-separated segments of `text`, split at the byte `/` (empty ones kept).
/// `String.split` works on Characters, where `/` followed by a combining mark is
/// no separator; the parsers under test work on bytes, and so must their checks.
public func pathSegments(_ text: some StringProtocol) -> [String] {
    text.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
}

/// Whether `text` begins with the bytes of `prefix`.
public func hasBytePrefix(_ text: some StringProtocol, _ prefix: String) -> Bool {
    text.utf8.starts(with: prefix.utf8)
}
