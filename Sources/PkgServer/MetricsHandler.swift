import NIOCore
import NIOHTTP1
import Prometheus

/// Answers one connection of a ``MetricsServer``: `GET` or `HEAD /metrics` with the
/// registry's Prometheus text, 405 for another method there, 404 for any other path.
final class MetricsHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let registry: PrometheusCollectorRegistry
    private var requestHead: HTTPRequestHead?

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): requestHead = head
        case .body: break
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        var headers = HTTPHeaders([("Date", ServerDate.now)])
        var body = context.channel.allocator.buffer(capacity: 0)
        let status: HTTPResponseStatus
        if head.uri.prefix(while: { $0 != "?" }) != "/metrics" {
            status = .notFound
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            body.writeString("not found; metrics are at /metrics\n")
        } else if head.method != .GET && head.method != .HEAD {
            status = .methodNotAllowed
            headers.add(name: "Allow", value: "GET, HEAD")
        } else {
            status = .ok
            headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
            headers.add(name: "Cache-Control", value: "no-store")
            var text: [UInt8] = []
            registry.emit(into: &text)
            body.writeBytes(text)
        }
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
                      promise: nil)
        if head.method != .HEAD, body.readableBytes > 0 {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !head.isKeepAlive {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
