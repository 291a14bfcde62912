/// A fuzz input read as text fields: the bytes as UTF-8 (invalid sequences become
/// U+FFFD, as a `String` made by a server or libcurl would hold them), split at `\n`.
public struct FuzzInput {
    /// The input's bytes.
    public let bytes: [UInt8]

    /// Copies libFuzzer's buffer.
    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    }

    /// The whole input as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text split at every `\n` (empty fields kept).
    public var lines: [Substring] {
        let whole = text
        return whole.split(separator: "\n", omittingEmptySubsequences: false)
    }
}
