import Dispatch
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
import PkgCore

/// A local HTTP/1.1 server over a ``Resolver``, for previewing packages in a
/// real browser: each request becomes a resolver request (local files go out
/// with `sendfile`), each client disconnect a `stop`.
///
/// ```swift
/// let resolver = try Resolver(store: PackageStore(root: root))
/// let server = PreviewServer(resolver: resolver,
///                            configuration: .init(port: 8080, defaultHost: "www.example.com"))
/// let address = try server.start()
/// print("http://127.0.0.1:\(address.port!)/app/")
/// server.waitUntilShutDown()    // until shutdown() — e.g. from a SIGINT handler
/// ```
public final class PreviewServer: Sendable {
    /// The resolver answering every request.
    public let resolver: PkgCore.Resolver
    /// Address, default host and limits.
    public let configuration: PreviewServerConfiguration
    private let accessLog: Logger?
    private let metrics: ServerMetrics?
    /// Shared by every connection: the log advises about a route prefix once per server.
    private let basePathAdvice = BasePathAdvice()
    private let group: MultiThreadedEventLoopGroup
    /// Dropped before the event loops stop: its deinit touches them.
    private let quiescing: PosixMutex<ServerQuiescingHelper?>
    private let stopped = DispatchSemaphore(value: 0)

    /// A server over `resolver`; `accessLog` gets one info line per request (nil: none).
    public init(resolver: PkgCore.Resolver, configuration: PreviewServerConfiguration = PreviewServerConfiguration(),
                accessLog: Logger? = nil) {
        self.resolver = resolver
        self.configuration = configuration
        self.accessLog = accessLog
        metrics = configuration.recordsMetrics ? ServerMetrics() : nil
        group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, configuration.threads))
        quiescing = PosixMutex(ServerQuiescingHelper(group: group))
    }

    /// Binds and starts accepting connections; returns the bound address.
    @discardableResult
    public func start() throws -> SocketAddress {
        guard let quiescing = quiescing.withLock({ $0 }) else {
            throw PkgError(.invalidArgument, "the preview server was shut down; make a new one")
        }
        let resolver = resolver, configuration = configuration, accessLog = accessLog, metrics = metrics,
            basePathAdvice = basePathAdvice
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 512)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    // NIO parses requests; PreviewHandler writes answers as bytes, keeps pipelined
                    // requests in order, answers malformed ones (errorCaught) and closes idle connections.
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try pipeline.addHandler(PreviewHandler(resolver: resolver, configuration: configuration,
                                                           accessLog: accessLog, metrics: metrics,
                                                           basePathAdvice: basePathAdvice))
                }
            }
            .bind(host: configuration.bindHost, port: configuration.port)
            .wait()
        guard let address = channel.localAddress else {
            throw PkgError(.fileSystem, "bind \(configuration.bindHost):\(configuration.port): no local address")
        }
        return address
    }

    /// Blocks until ``shutdown()`` has finished.
    public func waitUntilShutDown() {
        stopped.wait()
        stopped.signal()
    }

    /// Stops accepting, lets in-flight responses finish, closes idle
    /// connections, then stops the event loops. Blocks until done.
    public func shutdown() throws {
        defer { stopped.signal() }
        if let helper = quiescing.withLock({ helper in defer { helper = nil }; return helper }) {
            let done = group.next().makePromise(of: Void.self)
            helper.initiateShutdown(promise: done)
            try done.futureResult.wait()
        }
        try group.syncShutdownGracefully()
    }
}
