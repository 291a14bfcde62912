import NIOCore
import NIOHTTP1

/// Answers a request the HTTP decoder could not parse with 400 (431 for
/// oversized headers) and lets the decoder close the connection. Unlike NIO's
/// `HTTPServerProtocolErrorHandler`, it writes nothing on a connection that is
/// already closing (a client cut mid-request during a graceful shutdown).
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private var responseInProgress = false

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if !responseInProgress, context.channel.isActive {
            let status: HTTPResponseStatus = parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
            let headers = HTTPHeaders([("Connection", "close"), ("Content-Length", "0")])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                          promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code >= 200: responseInProgress = true
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}
