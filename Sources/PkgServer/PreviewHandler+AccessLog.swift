import Logging
import NIOCore
import NIOHTTP1
import PkgCore

/// The access log line and the metrics of each exchange.
extension PreviewHandler {
    /// `GET /app/index.html 200 614 html package 0.8ms`: method, target, status, body bytes,
    /// resource class, source, time; and the same request in the metrics.
    func log(_ exchange: Exchange, note: String = "") {
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
