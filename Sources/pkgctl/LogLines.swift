import Glibc
import PkgCore

/// Reads a log a megabyte at a time and hands over each line (without its newline), so a log
/// of any size costs one chunk and one line of memory. Lines are found with `memchr(3)` and
/// handed over in place; only a line cut by a chunk's end is copied, and of a line longer
/// than ``FleetTally/lineLimit`` only that much and one byte more (enough to know it is too long).
enum LogLines {
    static func read(_ path: String, line: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PkgError(.fileSystem, "open \(path.escapedForMessage): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let limit = FleetTally.lineLimit + 1
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        var carried: [UInt8] = []  // the start of a line the previous chunk cut
        while true {
            let count = Glibc.read(descriptor, chunk.baseAddress, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw PkgError(.fileSystem, "read \(path.escapedForMessage): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            var start = 0
            while start < count {
                guard let newline = memchr(chunk.baseAddress! + start, Int32(UInt8(ascii: "\n")), count - start) else {
                    carried += UnsafeBufferPointer(rebasing: chunk[start..<min(count, start + max(0, limit - carried.count))])
                    break
                }
                let end = chunk.baseAddress!.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                if carried.isEmpty {
                    line(UnsafeBufferPointer(rebasing: chunk[start..<end]))
                } else {
                    carried += UnsafeBufferPointer(rebasing: chunk[start..<min(end, start + max(0, limit - carried.count))])
                    carried.withUnsafeBufferPointer { line($0) }
                    carried.removeAll(keepingCapacity: true)
                }
                start = end + 1
            }
        }
        if !carried.isEmpty { carried.withUnsafeBufferPointer { line($0) } }
    }
}
