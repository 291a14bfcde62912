import Glibc
import Logging
import NIOCore
import NIOHTTP1
import PkgCore

/// Answering a request: a redirect, a local file (inline, a shared buffer, or `sendfile`), an
/// error, or a resolver task for what only the origin has.
extension PreviewHandler {
    func respond(to queuedRequest: QueuedRequest, context: ChannelHandlerContext) {
        let head = queuedRequest.head
        exchange = Exchange(head: head, started: .now())
        if queuedRequest.bodyTooLarge {
            return sendError(.payloadTooLarge, "request body over \(configuration.maxRequestBody) bytes", context: context)
        }
        if head.method == .CONNECT {
            return sendError(.methodNotAllowed, "CONNECT tunnels are not supported; use http:// URLs", context: context)
        }
        if let refusal = HostField.refusal(for: head) {
            return sendError(.badRequest, refusal, context: context)
        }
        let body = queuedRequest.body.map { Array($0.readableBytesView) } ?? []
        guard let request = RequestTarget.resourceRequest(for: head, body: body, scheme: configuration.scheme,
                                                          defaultHost: configuration.defaultHost) else {
            return sendError(.badRequest, "request target '\(head.uri.escapedForMessage)' names no resource", context: context)
        }
        // Whether a route holds the path of a GET or HEAD that missed: its 404 needs no base-path advice.
        var isRouted = false
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
                switch try resolver.locate(request) {
                case .local(let answer, _): return sendLocal(answer, context: context)
                case .miss(let miss): isRouted = miss.isRouted
                }
            } catch {
                return sendError(.badRequest, error.message, context: context)
            }
        }
        if !configuration.offline, let port = context.channel.localAddress?.port,
           let refusal = ownAddressRefusal(for: request, isRouted: isRouted, port: port) {
            return sendError(refusal.status, refusal.message, context: context)
        }
        if configuration.offline {
            return sendError(.notFound, notFoundMessage(for: request, isRouted: isRouted,
                                                        referer: head.headers.first(name: "Referer")),
                             context: context)
        }
        let task = ChannelResourceTask(request: request, resolver: resolver, handler: self, context: context)
        upstreamTask = task
        resolver.start(task, delivery: task.delivery)
    }

    /// The body of the 404 for `request` when nothing goes to the origin: what it is not in, true
    /// to what is served, then, for a path outside every route, the base path the page's build
    /// likely needs (``BasePathAdvice``).
    private func notFoundMessage(for request: ResourceRequest, isRouted: Bool, referer: String?) -> String {
        let url = request.url.escapedForMessage
        let missing = resolver.servedFolder.map { "\(url) is not in the build folder \($0.escapedForMessage)" }
            ?? ResolutionPlan.offlineMiss(url: request.url)
        guard !isRouted, let advice = basePathAdvice.advice(for: request, referer: referer, resolver: resolver) else {
            return missing
        }
        return missing + "; " + advice
    }

    /// The answer to a request no route holds whose origin would be this server itself (its
    /// `Host` is a loopback or the bound address at the port it came in on, and no `--upstream`
    /// names another): 503 while
    /// the store has no package, 404 otherwise, each saying what `serve` logged at start, instead
    /// of a fetch from `https://` of its own address that can only fail, seconds later.
    private func ownAddressRefusal(for request: ResourceRequest, isRouted: Bool,
                                   port: Int) -> (status: HTTPResponseStatus, message: String)? {
        let upstreams = resolver.configuration
        guard upstreams.upstream == nil, upstreams.routeUpstreams.isEmpty,
              HostField.isOwnAddress(request.host, bindHost: configuration.bindHost, port: port),
              request.method == "GET" || request.method == "HEAD" ? !isRouted : !resolver.routesHost(request.host) else { return nil }
        let url = request.url.escapedForMessage
        guard !resolver.routeNames.isEmpty else {
            return (.serviceUnavailable, "\(url): the store \(resolver.store.layout.root.escapedForMessage) has no installed "
                    + "package, and no --upstream names an origin (run pkgctl update first)")
        }
        return (.notFound, "\(url) is under no route (routes: \(resolver.routeNames.joined(separator: ", ").escapedForMessage)), "
                + "and no --upstream names an origin; request a routed host, or serve with --default-host")
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
}
