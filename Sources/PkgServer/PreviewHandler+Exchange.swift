import NIOCore
import NIOHTTP1

extension PreviewHandler {
    /// The request being answered, for the response and the access log.
    struct Exchange {
        var head: HTTPRequestHead
        var started: NIODeadline
        var status = 0
        var bytes = 0
        var source = "-"
        var responseStarted = false
        /// The body goes out in chunks (an origin answer of unknown length to an HTTP/1.1 client).
        var chunked = false
        /// The connection closes once this answer is out.
        var closes = false
        /// The body's `Content-Length`, when the answer has one and a body.
        var promisedBytes: Int?
        /// The body may still be on its way out when the answer ends (a file region, an
        /// origin stream): the connection must not count as idle until it is.
        var awaitsWrites = false
    }
}
