import NIOCore
import PkgCore

/// A resolver task whose answer goes out on one HTTP connection: every callback
/// (from resolver threads) hops onto the channel's event loop, in order.
final class ChannelResourceTask: ResourceTask {
    let request: ResourceRequest
    private let target: NIOLoopBound<(handler: PreviewHandler, context: ChannelHandlerContext)>
    private let eventLoop: EventLoop

    init(request: ResourceRequest, handler: PreviewHandler, context: ChannelHandlerContext) {
        self.request = request
        eventLoop = context.eventLoop
        target = NIOLoopBound((handler, context), eventLoop: context.eventLoop)
    }

    func didReceive(_ response: ResourceResponse) {
        let target = target
        eventLoop.execute {
            let (handler, context) = target.value
            handler.writeHead(response, source: "origin", context: context)
            context.flush()
        }
    }

    func didReceive(_ data: UnsafeRawBufferPointer) {
        let buffer = ByteBuffer(bytes: data)
        let target = target
        eventLoop.execute {
            let (handler, context) = target.value
            handler.writeBody(buffer, context: context)
        }
    }

    func didFinish() {
        let target = target
        eventLoop.execute {
            let (handler, context) = target.value
            handler.finish(context: context)
        }
    }

    func didFail(_ error: PkgError) {
        let target = target
        eventLoop.execute {
            let (handler, context) = target.value
            handler.fail(error, context: context)
        }
    }
}
