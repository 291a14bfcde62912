import Glibc
import NIOCore

/// A package or overlay file that could not be read while its answer was being sent:
/// a fault on this side (a disk error, a file cut short), logged as an error and
/// counted, never taken for a client that went away.
struct LocalReadFailure: Error {
    /// The file being read.
    let path: String
    /// The `errno` of the failed read; nil when the file simply ended early or the write
    /// failed otherwise (``otherError``).
    let errno: Int32?
    /// A failed write's error that is neither an errno nor the client's going (kept as text).
    let otherError: String?

    /// `read PATH: Input/output error (errno 5)`, `read PATH: ended early`, or
    /// `send PATH: ERROR` for another failure of the write.
    var description: String {
        if let otherError { return "send \(path): \(otherError)" }
        guard let errno else { return "read \(path): ended early" }
        return "read \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }

    /// The failure behind a failed write of `path` (a `FileRegion`: sendfile reads it), or nil
    /// when the write failed because the client closed or reset the connection.
    init?(writing path: String, failedWith error: Error) {
        if let error = error as? IOError {
            if Self.clientErrnos.contains(error.errnoCode) { return nil }
            self.init(path: path, errno: error.errnoCode)
            return
        }
        if let error = error as? ChannelError {
            switch error {
            case .ioOnClosedChannel, .alreadyClosed, .eof, .outputClosed: return nil
            default: break
            }
        }
        self.init(path: path, errno: nil, otherError: String(describing: error))
    }

    init(path: String, errno: Int32?, otherError: String? = nil) {
        self.path = path
        self.errno = errno
        self.otherError = otherError
    }

    /// What a write fails with when the peer is gone.
    private static let clientErrnos: Set<Int32> = [EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN, ETIMEDOUT]
}
