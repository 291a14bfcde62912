import NIOCore
import NIOHTTP1

extension PreviewHandler {
    /// A request read to its end, waiting for its turn.
    struct QueuedRequest {
        var head: HTTPRequestHead
        var body: ByteBuffer?
        var bodyTooLarge: Bool
    }
}
