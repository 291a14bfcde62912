import Glibc
import NIOCore

/// A package or overlay file that could not be read while its answer was being sent:
/// a fault on this side (a disk error, a file cut short), logged as an error and
/// counted, never taken for a client that went away.
struct LocalReadFailure: Error {
    /// The file being read.
    let path: String
    /// The `errno` of the failed read; nil when the file simply ended early.
    let errno: Int32?

    /// `read PATH: Input/output error (errno 5)`, or `read PATH: ended early`.
    var description: String {
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
        self.init(path: path, errno: nil)
    }

    init(path: String, errno: Int32?) {
        self.path = path
        self.errno = errno
    }

    /// What a write fails with when the peer is gone.
    private static let clientErrnos: Set<Int32> = [EPIPE, ECONNRESET, ENOTCONN, ESHUTDOWN, ETIMEDOUT]
}
