import NIOCore
import NIOHTTP1
import NIOPosix
import PkgCore
import Prometheus

/// A small HTTP/1.1 server for Prometheus to scrape: `GET /metrics` answers `registry`'s
/// text exposition (`text/plain; version=0.0.4`), any other path 404. Runs on an event
/// loop of its own, beside a ``PreviewServer``.
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// let metrics = MetricsServer(registry: registry, host: "127.0.0.1", port: 9090)
/// let address = try metrics.start()     // http://127.0.0.1:9090/metrics
/// ```
public final class MetricsServer: Sendable {
    /// The registry whose metrics are served.
    public let registry: PrometheusCollectorRegistry
    /// Address to bind, e.g. `127.0.0.1`.
    public let host: String
    /// Port to bind; 0 picks a free one.
    public let port: Int
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A server for `registry` on `host`:`port`; nothing listens before ``start()``.
    public init(registry: PrometheusCollectorRegistry, host: String, port: Int) {
        self.registry = registry
        self.host = host
        self.port = port
    }

    /// Binds and starts answering; returns the bound address.
    @discardableResult
    public func start() throws -> SocketAddress {
        let registry = registry
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHandler(registry: registry))
                }
            }
            .bind(host: host, port: port)
            .wait()
        guard let address = channel.localAddress else {
            throw PkgError(.fileSystem, "bind \(host):\(port): no local address")
        }
        return address
    }

    /// Closes every connection and stops the event loop. Blocks until done.
    public func shutdown() throws {
        try group.syncShutdownGracefully()
    }
}
