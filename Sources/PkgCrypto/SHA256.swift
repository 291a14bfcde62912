import COpenSSL

/// SHA-256 over Debian's libcrypto, the library libcurl already loads into every pkgctl process.
///
/// A value type: a copy hashes on independently of the original.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(data: Array("abc".utf8))
/// print(hasher.finalize())  // SHA256 digest: ba7816bf…
/// ```
public struct SHA256: @unchecked Sendable {
    // @unchecked: the context is shared between copies only until one of them writes, which
    // first takes a context of its own (copy on write, as Array does).
    private var context: DigestContext

    /// A hasher over no bytes yet.
    public init() { context = DigestContext() }

    /// The digest of `data` in one call.
    public static func hash<Bytes: Sequence>(data: Bytes) -> SHA256Digest where Bytes.Element == UInt8 {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// Adds `data` to what is hashed.
    public mutating func update<Bytes: Sequence>(data: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = data.withContiguousStorageIfAvailable { update(bufferPointer: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(data).withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// Adds the bytes of `bufferPointer` to what is hashed.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        guard !bufferPointer.isEmpty else { return }
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        context.update(bufferPointer)
    }

    /// The digest of everything added so far; the hasher itself is left as it was.
    public func finalize() -> SHA256Digest {
        SHA256Digest(bytes: context.copy().finish())
    }
}

/// The 32 bytes of a SHA-256 digest.
public struct SHA256Digest: Sendable, Hashable, RandomAccessCollection, CustomStringConvertible {
    private let bytes: [UInt8]

    init(bytes: [UInt8]) { self.bytes = bytes }

    public var startIndex: Int { bytes.startIndex }
    public var endIndex: Int { bytes.endIndex }
    public subscript(position: Int) -> UInt8 { bytes[position] }

    public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try bytes.withUnsafeBufferPointer(body)
    }

    /// `SHA256 digest: ` and the lower-case hex digits.
    public var description: String {
        "SHA256 digest: " + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
