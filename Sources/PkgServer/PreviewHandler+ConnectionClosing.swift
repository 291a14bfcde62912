import NIOCore
import NIOHTTP1

/// Closing connections: idle ones, and those whose request could not be read to its end.
extension PreviewHandler {
    /// How long a lingering close drains a client that keeps sending.
    static let lingeringSeconds: Int64 = 5

    func scheduleIdleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
        idleCheck = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            checkIdle(context: context)
        }
    }

    /// Closes an idle connection, or looks again when it may next be idle.
    private func checkIdle(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let idleAt = lastRead + configuration.idleTimeout
        if idleAt > .now() { return scheduleIdleCheck(at: idleAt, context: context) }
        if exchange == nil, responsesBeingSent == 0 { return context.close(promise: nil) }
        scheduleIdleCheck(at: .now() + configuration.idleTimeout, context: context)
    }

    /// A request the HTTP decoder could not parse: 400 (431 for oversized headers),
    /// unless a response is under way or the connection is already closing (a
    /// client cut mid-request during a graceful shutdown); then the connection closes.
    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if lingering { return }  // the decoder keeps failing on what is drained
        guard let parserError = error as? HTTPParserError else {
            context.close(promise: nil)
            return
        }
        guard exchange == nil, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        let status = parserError == .headerOverflow ? 431 : 400
        var buffer = context.channel.allocator.buffer(capacity: 160)
        ResponseHead.write(status: status, fields: [("Content-Length", "0")], untrusted: false, source: "pkgctl",
                           framing: .length, connection: "close", into: &buffer)
        closeLingering(after: context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))), context: context)
    }

    /// Answers 400 with `reason` to a request whose head says it is refused, without reading its
    /// body, then closes the connection lingering (its body and anything after it are dropped).
    func refuseBeforeBody(_ reason: String, context: ChannelHandlerContext) {
        let body = Array((reason + "\n").utf8)
        var buffer = context.channel.allocator.buffer(capacity: 200 + body.count)
        ResponseHead.write(status: 400, fields: [("Content-Type", "text/plain; charset=utf-8"),
                                                 ("Content-Length", String(body.count))],
                           untrusted: false, source: "pkgctl", framing: .length, connection: "close", into: &buffer)
        buffer.writeBytes(body)
        closeLingering(after: context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))), context: context)
    }

    /// Closes after an answer to a request that was not read to its end (nginx's
    /// "lingering close"): once the answer is out, stop sending, then read and drop
    /// what the client is still sending until it is done (EOF) or
    /// ``lingeringSeconds`` pass. Closing at once would leave unread bytes in the
    /// socket, and the kernel would answer them with a reset that can destroy the
    /// answer before the client reads it.
    func closeLingering(after written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        lingering = true
        let channel = context.channel
        written.whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(Self.lingeringSeconds)) { channel.close(promise: nil) }
        }
    }
}
