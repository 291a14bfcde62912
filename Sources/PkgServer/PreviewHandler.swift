import Glibc
import Logging
import NIOCore
import NIOHTTP1
import PkgCore

/// One connection's HTTP exchanges: each complete request is answered from the
/// resolver's local fast path (pread or `sendfile`), or becomes a resolver task
/// whose callbacks are written out on this channel's event loop. A client that
/// disconnects stops its task.
///
/// NIO parses requests; responses are written here as bytes (``ResponseHead``):
/// a head and a small body go out in one write. Pipelined requests wait in order
/// behind the one being answered, and reading pauses while too many wait.
final class PreviewHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = IOData

    /// Bodies up to this size are copied behind their head into one buffer; larger ones
    /// held in memory follow the head as a slice of the file's shared buffer
    /// (``AnswerCache``), the rest as a `FileRegion` (sendfile). Writes above it are
    /// waited for before the connection may count as idle.
    static let inlineBodyLimit: Int64 = 16 * 1024

    private let resolver: PkgCore.Resolver
    private let configuration: PreviewServerConfiguration
    private let accessLog: Logger?
    private let metrics: ServerMetrics?
    /// Faults on this side (a package file that cannot be read), whatever `accessLog` is.
    private let errorLog = Logger(label: "pkgctl.serve")
    /// This event loop's heads and bodies of local answers; taken on the loop, at first use.
    private lazy var answerCache = AnswerCache.current

    private var requestHead: HTTPRequestHead?
    private var requestBody: ByteBuffer?
    private var requestBodyTooLarge = false
    /// Complete requests that arrived while another was being answered (pipelining).
    private var queued = CircularBuffer<QueuedRequest>()
    /// Set while reading is paused because ``queuedRequestLimit`` requests wait.
    private var readsPaused = false
    /// Set once the server is shutting down: the connection closes after the current answer.
    private var quiescing = false
    private var exchange: Exchange?
    private var upstreamTask: ChannelResourceTask?
    /// Responses whose last bytes are not yet on the wire (a large `sendfile` may take long).
    private var responsesBeingSent = 0
    /// Set once an error answer is out and the client's remaining bytes are being drained.
    private var lingering = false
    /// When the client last sent bytes, and the check that closes the connection once it has
    /// sent nothing for ``PreviewServerConfiguration/idleTimeout`` while no answer is under way
    /// (kept here rather than in NIO's `IdleStateHandler`: one handler less on every event).
    private var lastRead = NIODeadline.now()
    private var idleCheck: Scheduled<Void>?
    /// How long a lingering close drains a client that keeps sending.
    static let lingeringSeconds: Int64 = 5
    /// Pipelined requests waiting when the connection stops reading (each may hold a body of
    /// up to ``PreviewServerConfiguration/maxRequestBody``); requests already in the read
    /// buffer are still decoded and queued.
    static let queuedRequestLimit = 4

    /// A request read to its end, waiting for its turn.
    struct QueuedRequest {
        var head: HTTPRequestHead
        var body: ByteBuffer?
        var bodyTooLarge: Bool
    }

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
            let request = QueuedRequest(head: head, body: requestBody, bodyTooLarge: requestBodyTooLarge)
            requestBody = nil
            if exchange == nil, queued.isEmpty {
                respond(to: request, context: context)
            } else if !quiescing {
                queued.append(request)
                if queued.count >= Self.queuedRequestLimit, !readsPaused {
                    readsPaused = true
                    context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
                }
            }
        }
    }

    /// Answers the next queued request, once the previous answer is complete.
    private func respondToNextQueued(context: ChannelHandlerContext) {
        guard exchange == nil, !quiescing, let next = queued.popFirst() else { return }
        if readsPaused, queued.count < Self.queuedRequestLimit / 2 {
            readsPaused = false
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        respond(to: next, context: context)
    }

    func channelActive(context: ChannelHandlerContext) {
        lastRead = .now()
        scheduleIdleCheck(at: lastRead + configuration.idleTimeout, context: context)
        context.fireChannelActive()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        lastRead = .now()
        context.fireChannelReadComplete()
    }

    private func scheduleIdleCheck(at deadline: NIODeadline, context: ChannelHandlerContext) {
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

    func channelInactive(context: ChannelHandlerContext) {
        idleCheck?.cancel()
        idleCheck = nil
        if let task = upstreamTask {
            upstreamTask = nil
            resolver.stop(task)
        }
        if let exchange {
            self.exchange = nil
            // A client may close once it has every byte it was promised, before the origin's end reaches us.
            let complete = exchange.promisedBytes.map { $0 == exchange.bytes } ?? false
            log(exchange, note: complete ? "" : " (client gone)")
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
        let status = parserError == .headerOverflow ? 431 : 400
        var buffer = context.channel.allocator.buffer(capacity: 160)
        ResponseHead.write(status: status, fields: [("Content-Length", "0")], untrusted: false, source: "pkgctl",
                           framing: .length, connection: "close", into: &buffer)
        closeLingering(after: context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer))), context: context)
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
        if event is ChannelShouldQuiesceEvent {
            // Shutting down: finish the answer under way (its head says Connection: close unless
            // it is already out), then close once its last bytes are written.
            quiescing = true
            queued.removeAll()
            if exchange == nil, responsesBeingSent == 0 { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: Answering

    private func respond(to queuedRequest: QueuedRequest, context: ChannelHandlerContext) {
        let head = queuedRequest.head
        exchange = Exchange(head: head, started: .now())
        if queuedRequest.bodyTooLarge {
            return sendError(.payloadTooLarge, "request body over \(configuration.maxRequestBody) bytes", context: context)
        }
        if head.method == .CONNECT {
            return sendError(.methodNotAllowed, "CONNECT tunnels are not supported; use http:// URLs", context: context)
        }
        let body = queuedRequest.body.map { Array($0.readableBytesView) } ?? []
        guard let request = RequestTarget.resourceRequest(for: head, body: body, scheme: configuration.scheme,
                                                          defaultHost: configuration.defaultHost) else {
            return sendError(.badRequest, "request target '\(head.uri.escapedForMessage)' names no resource", context: context)
        }
        if head.method == .GET || head.method == .HEAD {
            if configuration.redirectsRoot, request.rawPath == "/", head.uri.hasPrefix("/"),
               let entry = resolver.entryPath(forHost: request.host) {
                let location = request.query.isEmpty ? entry : entry + "?" + request.query
                let head = startResponse(ResourceResponse(status: 302, headers: [("Location", location),
                                                                                 ("Content-Length", "0")]),
                                         source: "pkgctl", context: context, length: 0)
                return finish(context: context, last: head)
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
            return sendError(.notFound, "\(request.url.escapedForMessage) is in no installed package (offline)", context: context)
        }
        let task = ChannelResourceTask(request: request, resolver: resolver, handler: self, context: context)
        upstreamTask = task
        resolver.start(task, delivery: task.delivery)
    }

    private func sendLocal(_ answer: LocalAnswer, context: ChannelHandlerContext) {
        let source: String
        switch answer.source {
        case .package: source = "package"
        case .overlay: source = "overlay"
        }
        guard let file = answer.file, !answer.range.isEmpty else {
            return finish(context: context, last: startResponse(answer.response, source: source, context: context))
        }
        let count = Int(answer.range.count)
        exchange?.bytes = count
        if answer.range.count <= Self.inlineBodyLimit {
            // Head and body in one buffer: one write.
            var buffer = startResponse(answer.response, source: source, context: context, length: count, file: file,
                                       bodyCapacity: count)
            do {
                try Self.append(file, range: answer.range, to: &buffer)
            } catch {
                return abandon(after: error, context: context)
            }
            return finish(context: context, last: buffer)
        }
        if file.isInMemory {
            // The head, then a slice of the file's shared buffer: one writev, no copy of the body.
            let head = startResponse(answer.response, source: source, context: context, length: count, file: file)
            let body: ByteBuffer
            do {
                body = try answerCache.body(of: file, range: answer.range, allocator: context.channel.allocator)
            } catch {
                return abandon(after: error, context: context)
            }
            exchange?.awaitsWrites = true
            context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
            return finish(context: context, last: body)
        }
        let head = startResponse(answer.response, source: source, context: context, length: count, file: file)
        exchange?.awaitsWrites = true
        context.write(wrapOutboundOut(.byteBuffer(head)), promise: nil)
        // The handle borrows the descriptor: `file` owns and closes it once the region is sent.
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: file.descriptor)
        let region = FileRegion(fileHandle: handle, readerIndex: Int(answer.range.lowerBound),
                                endIndex: Int(answer.range.upperBound))
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let request = exchange.map { "\($0.head.method.rawValue) \($0.head.uri)" } ?? "-"
        context.write(wrapOutboundOut(.fileRegion(region))).whenComplete { result in
            _ = try? handle.takeDescriptorOwnership()
            withExtendedLifetime(file) {}
            // The access line is already written; a client that left needs nothing more.
            if case .failure(let error) = result, let failure = LocalReadFailure(writing: file.path, failedWith: error) {
                handler.value.report(failure, request: request)
            }
        }
        finish(context: context)
    }

    /// Gives up an answer whose head is encoded but whose body cannot be read: the connection cannot go on.
    private func abandon(after failure: LocalReadFailure, context: ChannelHandlerContext) {
        if let exchange {
            report(failure, request: "\(exchange.head.method.rawValue) \(exchange.head.uri)")
            log(exchange, note: " (\(failure.description))")
        }
        exchange = nil
        context.close(promise: nil)
    }

    /// Logs a local read failure as an error, naming the file and the errno, and counts it.
    private func report(_ failure: LocalReadFailure, request: String) {
        errorLog.error("\(request): \(failure.description); the answer was cut")
        metrics?.localReadFailed()
    }

    /// Appends `range` of `file` to `buffer`.
    private static func append(_ file: LocalFile, range: Range<Int64>,
                               to buffer: inout ByteBuffer) throws(LocalReadFailure) {
        let count = Int(range.count)
        var offset = 0
        while offset < count {
            var failedErrno: Int32?
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - offset) { pointer in
                let read = file.read(into: UnsafeMutableRawBufferPointer(rebasing: pointer[..<(count - offset)]),
                                     at: range.lowerBound + Int64(offset))
                if read < 0 { failedErrno = errno }
                return max(0, read)
            }
            if read == 0 { throw LocalReadFailure(path: file.path, errno: failedErrno) }
            offset += read
        }
    }

    // MARK: Writing (also used by ChannelResourceTask, on the event loop)

    /// Encodes the head of the current exchange's answer into a new buffer with room for
    /// `bodyCapacity` more bytes, and decides its framing: `Content-Length` when the
    /// answer has one or no body; else chunks for HTTP/1.1, or the end of the connection.
    /// `length` is the body's length when the caller knows it (else the server's own
    /// answers say it in their fields); the head of an answer from a local `file` comes
    /// from ``answerCache``.
    private func startResponse(_ response: ResourceResponse, source: String, context: ChannelHandlerContext,
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

    private func sendError(_ status: HTTPResponseStatus, _ message: String, context: ChannelHandlerContext) {
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
