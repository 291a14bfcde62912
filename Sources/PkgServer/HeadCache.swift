import NIOPosix
import PkgCore

/// Encoded status lines and fields of local answers (``ResponseHead/encodeStart(status:fields:untrusted:)``),
/// one cache per event loop, so a file answered again the same way costs a copy of
/// its cached bytes and the server's own fields, not an encoding.
///
/// An entry is found by the file's identity and used only while that file is alive
/// (a weak reference) and the answer's status and fields equal the cached ones;
/// fields usually share storage with the cached copy, so comparing them is cheap.
/// Only one event loop touches a cache; it is emptied when full.
final class HeadCache {
    private struct Entry {
        weak var file: LocalFile?
        let status: Int
        let fields: [(name: String, value: String)]
        let start: [UInt8]
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// Most entries before the cache is emptied.
    static let limit = 1024

    /// Thread-safe itself; each cache in it is used by its own thread only.
    private nonisolated(unsafe) static let perThread = ThreadSpecificVariable<HeadCache>()

    /// The calling event loop's cache.
    static var current: HeadCache {
        if let cache = perThread.currentValue { return cache }
        let cache = HeadCache()
        perThread.currentValue = cache
        return cache
    }

    /// The encoded status line and fields of `response`, an answer from `file`.
    func start(of response: ResourceResponse, from file: LocalFile) -> [UInt8] {
        let key = ObjectIdentifier(file)
        if let entry = entries[key], entry.file === file, entry.status == response.status,
           Self.equal(entry.fields, response.headers) {
            return entry.start
        }
        let start = ResponseHead.encodeStart(status: response.status, fields: response.headers, untrusted: false)
        if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
        entries[key] = Entry(file: file, status: response.status, fields: response.headers, start: start)
        return start
    }

    private static func equal(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices where a[index].name != b[index].name || a[index].value != b[index].value { return false }
        return true
    }
}
