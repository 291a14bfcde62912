import Glibc
import NIOCore
import NIOPosix
import PkgCore

/// What answering local files again can reuse, one cache per event loop: the encoded
/// status line and fields of an answer (``ResponseHead/encodeStart(status:fields:untrusted:)``),
/// and the bytes of a file held in memory as a `ByteBuffer` that every answer from it
/// writes (a slice), so a hit costs a copy of the head's cached bytes and no copy of
/// the body.
///
/// Entries are found by the file's identity and used only while that file is alive (a
/// weak reference); a head also only while the answer's status and fields equal the
/// cached ones (fields usually share storage with the cached copy, so comparing them is
/// cheap). Only one event loop touches a cache; it is emptied when full.
final class AnswerCache {
    private struct Head {
        weak var file: LocalFile?
        let status: Int
        let fields: [(name: String, value: String)]
        let start: [UInt8]
    }

    private struct Body {
        weak var file: LocalFile?
        let bytes: ByteBuffer
    }

    private var heads: [ObjectIdentifier: Head] = [:]
    private var bodies: [ObjectIdentifier: Body] = [:]
    private var bodyBytes = 0
    /// Most heads, and most bodies, before either table is emptied.
    static let limit = 1024
    /// Most bytes of bodies before their table is emptied.
    static let bodyBudget = 64 << 20

    /// Thread-safe itself; each cache in it is used by its own thread only.
    private nonisolated(unsafe) static let perThread = ThreadSpecificVariable<AnswerCache>()

    /// The calling event loop's cache.
    static var current: AnswerCache {
        if let cache = perThread.currentValue { return cache }
        let cache = AnswerCache()
        perThread.currentValue = cache
        return cache
    }

    /// The encoded status line and fields of `response`, an answer from `file`.
    func start(of response: ResourceResponse, from file: LocalFile) -> [UInt8] {
        let key = ObjectIdentifier(file)
        if let head = heads[key], head.file === file, head.status == response.status,
           Self.equal(head.fields, response.headers) {
            return head.start
        }
        let start = ResponseHead.encodeStart(status: response.status, fields: response.headers, untrusted: false)
        if heads.count >= Self.limit { heads.removeAll(keepingCapacity: true) }
        heads[key] = Head(file: file, status: response.status, fields: response.headers, start: start)
        return start
    }

    /// `range` of `file`, a file held in memory (``LocalFile/isInMemory``), as a slice of a
    /// buffer holding all of it.
    func body(of file: LocalFile, range: Range<Int64>, allocator: ByteBufferAllocator) throws(LocalReadFailure) -> ByteBuffer {
        let key = ObjectIdentifier(file)
        let bytes: ByteBuffer
        if let body = bodies[key], body.file === file {
            bytes = body.bytes
        } else {
            let size = Int(file.size)
            var buffer = allocator.buffer(capacity: size)
            var failedErrno: Int32?
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { pointer in
                let count = file.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[..<size]), at: 0)
                if count < 0 { failedErrno = errno }
                return max(0, count)
            }
            guard read == size else { throw LocalReadFailure(path: file.path, errno: failedErrno) }
            if bodies.count >= Self.limit || bodyBytes + size > Self.bodyBudget {
                bodies.removeAll(keepingCapacity: true)
                bodyBytes = 0
            }
            bodies[key] = Body(file: file, bytes: buffer)
            bodyBytes += size
            bytes = buffer
        }
        guard let slice = bytes.getSlice(at: Int(range.lowerBound), length: Int(range.count)) else {
            throw LocalReadFailure(path: file.path, errno: nil)
        }
        return slice
    }

    private static func equal(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices where a[index].name != b[index].name || a[index].value != b[index].value { return false }
        return true
    }
}
