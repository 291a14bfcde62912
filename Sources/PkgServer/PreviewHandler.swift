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

    let resolver: PkgCore.Resolver
    let configuration: PreviewServerConfiguration
    let accessLog: Logger?
    let metrics: ServerMetrics?
    let basePathAdvice: BasePathAdvice
    /// Faults on this side (a package file that cannot be read), whatever `accessLog` is.
    let errorLog = Logger(label: "pkgctl.serve")
    /// This event loop's heads and bodies of local answers; taken on the loop, at first use.
    lazy var answerCache = AnswerCache.current

    var requestHead: HTTPRequestHead?
    var requestBody: ByteBuffer?
    var requestBodyTooLarge = false
    /// Complete requests that arrived while another was being answered (pipelining).
    var queued = CircularBuffer<QueuedRequest>()
    /// Set while reading is paused because ``queuedRequestLimit`` requests wait.
    var readsPaused = false
    /// Set once the server is shutting down: the connection closes after the current answer.
    var quiescing = false
    var exchange: Exchange?
    var upstreamTask: ChannelResourceTask?
    /// Responses whose last bytes are not yet on the wire (a large `sendfile` may take long).
    var responsesBeingSent = 0
    /// Set once an error answer is out and the client's remaining bytes are being drained.
    var lingering = false
    /// When the client last sent bytes, and the check that closes the connection once it has
    /// sent nothing for ``PreviewServerConfiguration/idleTimeout`` while no answer is under way
    /// (kept here rather than in NIO's `IdleStateHandler`: one handler less on every event).
    var lastRead = NIODeadline.now()
    var idleCheck: Scheduled<Void>?
    /// Pipelined requests waiting when the connection stops reading (each may hold a body of
    /// up to ``PreviewServerConfiguration/maxRequestBody``); requests already in the read
    /// buffer are still decoded and queued.
    static let queuedRequestLimit = 4

    init(resolver: PkgCore.Resolver, configuration: PreviewServerConfiguration, accessLog: Logger?,
         metrics: ServerMetrics?, basePathAdvice: BasePathAdvice) {
        self.resolver = resolver
        self.configuration = configuration
        self.accessLog = accessLog
        self.metrics = metrics
        self.basePathAdvice = basePathAdvice
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if lingering { return }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // A Host field RFC 9112 §3.2 refuses is answered before any body is read, as nginx does.
            if exchange == nil, queued.isEmpty, let refusal = HostField.refusal(for: head) {
                return refuseBeforeBody(refusal, context: context)
            }
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
    func respondToNextQueued(context: ChannelHandlerContext) {
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
}
