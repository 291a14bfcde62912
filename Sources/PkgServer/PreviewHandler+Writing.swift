import NIOCore
import NIOHTTP1
import PkgCore

/// Writing answers: heads and their framing, bodies, the end of an exchange.
/// (Also used by ChannelResourceTask, on the event loop.)
extension PreviewHandler {
    /// Encodes the head of the current exchange's answer into a new buffer with room for
    /// `bodyCapacity` more bytes, and decides its framing: `Content-Length` when the
    /// answer has one or no body; else chunks for HTTP/1.1, or the end of the connection.
    /// `length` is the body's length when the caller knows it (else the server's own
    /// answers say it in their fields); the head of an answer from a local `file` comes
    /// from ``answerCache``.
    func startResponse(_ response: ResourceResponse, source: String, context: ChannelHandlerContext,
                               length: Int? = nil, file: LocalFile? = nil, bodyCapacity: Int = 0) -> ByteBuffer {
        var buffer = context.channel.allocator.buffer(capacity: 320 + bodyCapacity)
        // Moved out and back in, not copied: an exchange holds the request head.
        guard var exchange = exchange.take() else { return buffer }
        let status = response.status
        let hasBody = exchange.head.method != .HEAD && status >= 200 && status != 204 && status != 304
        // Answers of the server's own and local files carry one valid length; an origin's is
        // used only when it is a single number, else dropped and the body framed otherwise.
        var fields = response.headers
        let declaredLength: Int?
        if source == "origin" {
            let lengths = fields.filter { asciiCaseInsensitiveEqual($0.name, "Content-Length") }
            declaredLength = lengths.count == 1 ? UInt64(lengths[0].value).flatMap { Int(exactly: $0) } : nil
            if declaredLength == nil { fields.removeAll { asciiCaseInsensitiveEqual($0.name, "Content-Length") } }
        } else {
            declaredLength = length ?? response.header("Content-Length").flatMap { Int($0) }
        }
        let hasLength = source != "origin" || declaredLength != nil
        let isHTTP11 = exchange.head.version.major == 1 && exchange.head.version.minor >= 1
        exchange.chunked = hasBody && !hasLength && isHTTP11
        exchange.closes = !exchange.head.isKeepAlive || quiescing || (hasBody && !hasLength && !isHTTP11)
        let connection: StaticString? = exchange.closes ? "close" : (isHTTP11 ? nil : "keep-alive")
        let framing: ResponseHead.Framing = exchange.chunked ? .chunked : .length
        if let file {
            ResponseHead.write(start: answerCache.start(of: response, from: file), source: source, framing: framing,
                               connection: connection, into: &buffer)
        } else {
            ResponseHead.write(status: status, fields: fields, untrusted: source == "origin", source: source,
                               framing: framing, connection: connection, into: &buffer)
        }
        if hasBody { exchange.promisedBytes = declaredLength }
        exchange.status = status
        exchange.source = source
        exchange.awaitsWrites = source == "origin"
        exchange.responseStarted = true
        self.exchange = exchange
        return buffer
    }

    /// Writes and flushes the head of an origin answer.
    func writeHead(_ response: ResourceResponse, source: String, context: ChannelHandlerContext) {
        let head = startResponse(response, source: source, context: context)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(head)), promise: nil)
    }

    /// Writes and flushes a chunk of body (framed when chunked); the future completes once
    /// it is on the wire (or failed).
    func writeBody(_ data: UnsafeRawBufferPointer, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        let chunked = exchange?.chunked ?? false
        var buffer = context.channel.allocator.buffer(capacity: data.count + (chunked ? 12 : 0))
        if chunked, !data.isEmpty {
            buffer.writeString(String(data.count, radix: 16))
            buffer.writeStaticString("\r\n")
        }
        buffer.writeBytes(data)
        if chunked, !data.isEmpty { buffer.writeStaticString("\r\n") }
        exchange?.bytes += data.count
        return context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer)))
    }

    /// Ends the current answer with `last` (its remaining bytes, if any), then closes the
    /// connection or answers the next queued request.
    func finish(context: ChannelHandlerContext, last: ByteBuffer? = nil) {
        upstreamTask = nil
        guard let exchange = exchange.take() else { return }
        var final = last ?? context.channel.allocator.buffer(capacity: 0)
        if exchange.chunked { final.writeStaticString("0\r\n\r\n") }
        let closes = exchange.closes || quiescing
        guard closes || exchange.awaitsWrites else {
            // A small answer written whole: nothing to do once it is out.
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(final)), promise: nil)
            log(exchange)
            return respondToNextQueued(context: context)
        }
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        responsesBeingSent += 1
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(final))).whenComplete { _ in
            let handler = handler.value
            handler.responsesBeingSent -= 1
            // A shutdown that began while these bytes were on their way closes now.
            let idleAtShutdown = handler.quiescing && handler.exchange == nil && handler.responsesBeingSent == 0
            if closes || idleAtShutdown { channel.close(promise: nil) }
        }
        log(exchange)
        if !closes { respondToNextQueued(context: context) }
    }

    func fail(_ error: PkgError, context: ChannelHandlerContext) {
        guard let exchange else { return }
        if exchange.responseStarted {
            // The head is out: the only honest signal left is a cut connection; the log says why.
            upstreamTask = nil
            self.exchange = nil
            log(exchange, note: " (cut: \(error.message))")
            context.close(promise: nil)
        } else {
            let status: HTTPResponseStatus = error.code == .invalidArgument ? .badRequest : .badGateway
            sendError(status, error.message, context: context)
        }
    }

    func sendError(_ status: HTTPResponseStatus, _ message: String, context: ChannelHandlerContext) {
        let count = message.utf8.count + 1  // and a newline
        let isHead = exchange?.head.method == .HEAD
        var buffer = startResponse(ResourceResponse(status: Int(status.code), headers: [
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(count)),
        ]), source: "pkgctl", context: context, length: count, bodyCapacity: count)
        if !isHead {
            buffer.writeString(message)
            buffer.writeStaticString("\n")
            exchange?.bytes = count
        }
        finish(context: context, last: buffer)
    }
}
