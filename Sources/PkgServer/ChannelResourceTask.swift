import NIOCore
import PkgCore

/// A resolver task whose answer goes out on one HTTP connection. Its callbacks
/// run on the channel's event loop (``EventLoopCallbackExecutor``), and bytes
/// count as consumed once NIO has written them to the socket: a client that
/// reads slowly holds back the origin instead of filling the server's memory.
final class ChannelResourceTask: ResourceTask {
    /// Bytes written to a connection and not yet on the wire, at most, before the origin waits.
    static let window = 256 * 1024

    let request: ResourceRequest
    private let resolver: PkgCore.Resolver
    private let target: NIOLoopBound<(handler: PreviewHandler, context: ChannelHandlerContext)>

    init(request: ResourceRequest, resolver: PkgCore.Resolver, handler: PreviewHandler, context: ChannelHandlerContext) {
        self.request = request
        self.resolver = resolver
        target = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
    }

    /// How the resolver delivers to this task: on the event loop, consumed when written.
    var delivery: TaskDelivery {
        .on(EventLoopCallbackExecutor(eventLoop: target.eventLoop), window: Self.window, consumption: .explicit)
    }

    func didReceive(_ response: ResourceResponse) {
        let (handler, context) = target.value
        handler.writeHead(response, source: "origin", context: context)
    }

    func didReceive(_ data: UnsafeRawBufferPointer) {
        let (handler, context) = target.value
        let count = data.count
        handler.writeBody(data, context: context).whenComplete { [resolver] _ in
            resolver.consumed(count, by: self)
        }
    }

    func didFinish() {
        let (handler, context) = target.value
        handler.finish(context: context)
    }

    func didFail(_ error: PkgError) {
        let (handler, context) = target.value
        handler.fail(error, context: context)
    }
}
