import Glibc
import PkgCore
import PkgPublishing

/// Cuts a stream of chunks into lines (without their newlines), found with `memchr(3)` and
/// handed over in place; only a line cut by a chunk's end is copied, and of a line longer
/// than ``FleetTally/lineLimit`` only that much and one byte more (enough to know it is too long).
struct LineSplitter {
    private var carried: [UInt8] = []  // the start of a line the previous chunk cut
    private let limit = FleetTally.lineLimit + 1

    /// Hands over each line `chunk` completes; keeps the start of a line it leaves open.
    mutating func feed(_ chunk: UnsafeBufferPointer<UInt8>, line: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        while start < chunk.count {
            guard let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), chunk.count - start) else {
                carried += UnsafeBufferPointer(rebasing: chunk[start..<min(chunk.count, start + max(0, limit - carried.count))])
                return
            }
            let end = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
            if carried.isEmpty {
                try line(UnsafeBufferPointer(rebasing: chunk[start..<end]))
            } else {
                carried += UnsafeBufferPointer(rebasing: chunk[start..<min(end, start + max(0, limit - carried.count))])
                try carried.withUnsafeBufferPointer { try line($0) }
                carried.removeAll(keepingCapacity: true)
            }
            start = end + 1
        }
    }

    /// Hands over the last line, when the stream did not end with a newline.
    mutating func finish(line: (UnsafeBufferPointer<UInt8>) throws -> Void) rethrows {
        if !carried.isEmpty { try carried.withUnsafeBufferPointer { try line($0) } }
        carried.removeAll()
    }
}
