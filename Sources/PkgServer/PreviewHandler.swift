import Logging
import NIOCore
import NIOHTTP1
import PkgCore
#if canImport(Glibc)
import Glibc
#endif

/// One connection's HTTP exchanges: each complete request is answered from the
/// resolver's local fast path (pread or `sendfile`), or becomes a resolver task
/// whose callbacks are written out on this channel's event loop. A client that
/// disconnects stops its task.
final class PreviewHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// Bodies up to this size are read into memory and written in one go; larger
    /// ones go out as a `FileRegion` (sendfile).
    static let inlineBodyLimit: Int64 = 16 * 1024

    private let resolver: PkgCore.Resolver
    private let configuration: PreviewServerConfiguration
    private let accessLog: Logger?
    private let metrics: ServerMetrics?

    private var requestHead: HTTPRequestHead?
    private var requestBody: ByteBuffer?
    private var requestBodyTooLarge = false
    private var exchange: Exchange?
    private var upstreamTask: ChannelResourceTask?
    /// Responses whose last bytes are not yet on the wire (a large `sendfile` may take long).
    private var responsesBeingSent = 0
    /// Set once an error answer is out and the client's remaining bytes are being drained.
    private var lingering = false
    /// How long a lingering close drains a client that keeps sending.
    static let lingeringSeconds: Int64 = 5

    /// The request being answered, for the response and the access log.
    struct Exchange {
        var head: HTTPRequestHead
        var started: NIODeadline
        var status = 0
        var bytes = 0
        var source = "-"
        var responseStarted = false
    }

    init(resolver: PkgCore.Resolver, configuration: PreviewServerConfiguration, accessLog: Logger?,
         metrics: ServerMetrics?) {
        self.resolver = resolver
        self.configuration = configuration
        self.accessLog = accessLog
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            requestHead = head
            requestBody = nil
            requestBodyTooLarge = false
        case .body(var part):
            guard !requestBodyTooLarge else { return }
            if (requestBody?.readableBytes ?? 0) + part.readableBytes > configuration.maxRequestBody {
                requestBodyTooLarge = true
                requestBody = nil
            } else if requestBody == nil {
                requestBody = part
            } else {
                requestBody!.writeBuffer(&part)
            }
        case .end:
            guard let head = requestHead else { return }
            requestHead = nil
            respond(to: head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let task = upstreamTask {
            upstreamTask = nil
            resolver.stop(task)
        }
        if let exchange {
            self.exchange = nil
            log(exchange, note: " (client gone)")
        }
        context.fireChannelInactive()
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
        let status: HTTPResponseStatus = parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: HTTPHeaders([
            ("Date", ServerDate.now), ("Connection", "close"), ("Content-Length", "0"),
        ]))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        closeLingering(after: context.writeAndFlush(wrapOutboundOut(.end(nil))), context: context)
    }

    /// Closes after an answer to a request that was not read to its end (nginx's
    /// "lingering close"): once the answer is out, stop sending, then read and drop
    /// what the client is still sending until it is done (EOF) or
    /// ``lingeringSeconds`` pass. Closing at once would leave unread bytes in the
    /// socket, and the kernel would answer them with a reset that can destroy the
    /// answer before the client reads it.
    private func closeLingering(after written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        lingering = true
        let channel = context.channel
        written.whenComplete { _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(Self.lingeringSeconds)) { channel.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent, exchange == nil, responsesBeingSent == 0 {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Answering

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        exchange = Exchange(head: head, started: .now())
        if requestBodyTooLarge {
            return sendError(.payloadTooLarge, "request body over \(configuration.maxRequestBody) bytes", context: context)
        }
        if head.method == .CONNECT {
            return sendError(.methodNotAllowed, "CONNECT tunnels are not supported; use http:// URLs", context: context)
        }
        guard let url = RequestTarget.resourceURL(for: head, scheme: configuration.scheme,
                                                  defaultHost: configuration.defaultHost) else {
            return sendError(.badRequest, "request target '\(head.uri)' names no resource", context: context)
        }
        let body = requestBody.map { Array($0.readableBytesView) } ?? []
        requestBody = nil
        let request = ResourceRequest(url: url, method: head.method.rawValue,
                                      headers: head.headers.map { ($0.name, $0.value) }, body: body)
        if head.method == .GET || head.method == .HEAD {
            if configuration.redirectsRoot, request.rawPath == "/", head.uri.hasPrefix("/"),
               let entry = resolver.entryPath(forHost: request.host) {
                let location = request.query.isEmpty ? entry : entry + "?" + request.query
                writeHead(ResourceResponse(status: 302, headers: [("Location", location), ("Content-Length", "0")]),
                          source: "pkgctl", context: context)
                return finish(context: context)
            }
            do {
                if let answer = try resolver.answerLocally(request) {
                    return sendLocal(answer, context: context)
                }
            } catch {
                return sendError(.badRequest, error.message, context: context)
            }
        }
        if configuration.offline {
            return sendError(.notFound, "\(url) is in no installed package (offline)", context: context)
        }
        let task = ChannelResourceTask(request: request, resolver: resolver, handler: self, context: context)
        upstreamTask = task
        resolver.start(task, delivery: task.delivery)
    }

    private func sendLocal(_ answer: LocalAnswer, context: ChannelHandlerContext) {
        let source: String
        switch answer.source {
        case .package: source = "package"
        case .overlay: source = "cache"
        }
        writeHead(answer.response, source: source, context: context)
        guard let file = answer.file, !answer.range.isEmpty else { return finish(context: context) }
        exchange?.bytes = Int(answer.range.count)
        if answer.range.count <= Self.inlineBodyLimit || file.isInMemory {
            do {
                let buffer = try Self.read(file, range: answer.range, allocator: context.channel.allocator)
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            } catch {
                context.close(promise: nil)
                return
            }
            return finish(context: context)
        }
        // The handle borrows the descriptor: `file` owns and closes it once the region is sent.
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: file.descriptor)
        let region = FileRegion(fileHandle: handle, readerIndex: Int(answer.range.lowerBound),
                                endIndex: Int(answer.range.upperBound))
        context.write(wrapOutboundOut(.body(.fileRegion(region)))).whenComplete { _ in
            _ = try? handle.takeDescriptorOwnership()
            withExtendedLifetime(file) {}
        }
        finish(context: context)
    }

    private static func read(_ file: LocalFile, range: Range<Int64>, allocator: ByteBufferAllocator) throws -> ByteBuffer {
        let count = Int(range.count)
        var buffer = allocator.buffer(capacity: count)
        var offset = 0
        while offset < count {
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - offset) { pointer in
                max(0, file.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[..<(count - offset)]),
                                 at: range.lowerBound + Int64(offset)))
            }
            if read == 0 { throw PkgError(.fileSystem, "read \(file.path): ended early") }
            offset += read
        }
        return buffer
    }

    // MARK: Writing (also used by ChannelResourceTask, on the event loop)

    func writeHead(_ response: ResourceResponse, source: String, context: ChannelHandlerContext) {
        guard var exchange else { return }
        var headers = HTTPHeaders()
        // The resolver has already dropped the origin's connection-level headers.
        for (name, value) in response.headers {
            headers.add(name: name, value: value)
        }
        headers.replaceOrAdd(name: "Date", value: ServerDate.now)
        headers.replaceOrAdd(name: "X-Pkg-Source", value: source)
        if !exchange.head.isKeepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        exchange.status = response.status
        exchange.source = source
        exchange.responseStarted = true
        self.exchange = exchange
        let head = HTTPResponseHead(version: exchange.head.version,
                                    status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Writes and flushes a chunk of body; the future completes once it is on the wire (or failed).
    func writeBody(_ buffer: ByteBuffer, context: ChannelHandlerContext) -> EventLoopFuture<Void> {
        exchange?.bytes += buffer.readableBytes
        return context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))))
    }

    func finish(context: ChannelHandlerContext) {
        upstreamTask = nil
        guard let exchange else { return }
        self.exchange = nil
        let keepAlive = exchange.head.isKeepAlive
        let channel = context.channel
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        responsesBeingSent += 1
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            handler.value.responsesBeingSent -= 1
            if !keepAlive { channel.close(promise: nil) }
        }
        log(exchange)
    }

    func fail(_ error: PkgError, context: ChannelHandlerContext) {
        guard let exchange else { return }
        if exchange.responseStarted {
            // The head is out: the only honest signal left is a cut connection.
            upstreamTask = nil
            self.exchange = nil
            log(exchange)
            context.close(promise: nil)
        } else {
            let status: HTTPResponseStatus = error.code == .invalidArgument ? .badRequest : .badGateway
            sendError(status, error.message, context: context)
        }
    }

    private func sendError(_ status: HTTPResponseStatus, _ message: String, context: ChannelHandlerContext) {
        let body = message + "\n"
        writeHead(ResourceResponse(status: Int(status.code), headers: [
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.utf8.count)),
        ]), source: "pkgctl", context: context)
        var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
        buffer.writeString(body)
        exchange?.bytes = buffer.readableBytes
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        finish(context: context)
    }

    /// `GET /app/index.html 200 614 html package 0.8ms`: method, target, status, body bytes,
    /// resource class, source, time; and the same request in the metrics.
    private func log(_ exchange: Exchange, note: String = "") {
        guard accessLog != nil || metrics != nil else { return }
        let nanoseconds = (NIODeadline.now() - exchange.started).nanoseconds
        let head = exchange.head
        let path = head.uri.prefix { $0 != "?" }
        let resourceClass = ResourceClass.classify(accept: head.headers.first(name: "Accept"), path: path)
        metrics?.record(resourceClass, source: exchange.source, status: exchange.status, bytes: exchange.bytes,
                        nanoseconds: nanoseconds)
        guard let accessLog else { return }
        let milliseconds = (Double(nanoseconds) / 100_000).rounded() / 10
        accessLog.info("\(head.method.rawValue) \(head.uri) \(exchange.status) \(exchange.bytes) \(resourceClass.rawValue) \(exchange.source) \(milliseconds)ms\(note)")
    }
}
