import Glibc
import PkgCore
import PkgPublishing

/// Reads a log a megabyte at a time and hands over each line (without its newline), so a log
/// of any size costs one chunk and one line of memory (``LineSplitter``). A log that starts
/// with gzip's magic number (1f 8b), a file or stdin, whatever its name, is inflated as it is
/// read (``GzipReader``: every member of a concatenated file, one more megabyte of output);
/// a corrupt or cut one is an error naming it.
enum LogLines {
    /// Reads the outcome reports in the log at `path` (- for stdin) into `tally`, in the
    /// layout the log has (``ReportLogReader``).
    static func readReports(_ path: String, into tally: inout FleetTally) throws {
        var reader = ReportLogReader()
        try read(path) { reader.read(line: $0, into: &tally) }
    }

    static func read(_ path: String, line: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw PkgError(.fileSystem, "open \(path.escapedForMessage): \(String(cString: strerror(errno)))")
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 20)
        defer { chunk.deallocate() }
        var lines = LineSplitter()
        var gzip: GzipReader?
        var first = true
        while true {
            // The first read gathers the two bytes that tell gzip (a pipe may give one at a time).
            var count = try readSome(descriptor, into: chunk, path: path)
            if first, count == 1 { count += try readSome(descriptor, into: UnsafeMutableBufferPointer(rebasing: chunk[1...]), path: path) }
            let bytes = UnsafeBufferPointer(rebasing: chunk[0..<count])
            if first, GzipReader.isGzip(bytes) { gzip = try GzipReader(what: path == "-" ? "stdin" : path.escapedForMessage) }
            first = false
            if count == 0 { break }
            if let gzip {
                try gzip.feed(bytes) { lines.feed($0, line: line) }
            } else {
                lines.feed(bytes, line: line)
            }
        }
        try gzip?.finish()
        lines.finish(line: line)
    }

    /// One `read(2)` into `buffer` (again after EINTR): the bytes read, 0 at the end.
    private static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>, path: String) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR {
                throw PkgError(.fileSystem, "read \(path.escapedForMessage): \(String(cString: strerror(errno)))")
            }
        }
    }
}
