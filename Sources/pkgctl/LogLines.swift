import Glibc
import PkgCore

/// Reads a log a chunk at a time and hands over each line (without its newline), so a log of
/// any size costs one chunk and one line of memory. A line longer than ``FleetTally/lineLimit``
/// is skipped to its end and reported through `onTooLong`.
enum LogLines {
    static func read(_ path: String, line: ([UInt8]) -> Void, onTooLong: () -> Void) throws {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PkgError(.fileSystem, "open \(path.escapedForMessage): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var current: [UInt8] = []
        var skipping = false
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw PkgError(.fileSystem, "read \(path.escapedForMessage): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                if !skipping { current += chunk[start..<index] }
                finish(&current, &skipping, line, onTooLong)
                start = index + 1
            }
            if !skipping, start < count {
                current += chunk[start..<count]
                if current.count > FleetTally.lineLimit {
                    skipping = true
                    current = []
                }
            }
        }
        if skipping || !current.isEmpty { finish(&current, &skipping, line, onTooLong) }
    }

    private static func finish(_ current: inout [UInt8], _ skipping: inout Bool, _ line: ([UInt8]) -> Void,
                               _ onTooLong: () -> Void) {
        if skipping || current.count > FleetTally.lineLimit { onTooLong() } else { line(current) }
        current.removeAll(keepingCapacity: true)
        skipping = false
    }
}
