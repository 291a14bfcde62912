import CoreMetrics
import PkgCore

/// A ``PreviewServer``'s per-request metrics, through swift-metrics, labelled as the
/// access log line is:
///
/// - `pkgctl_requests_total{class,source,status}`: requests answered (or given up by the client);
/// - `pkgctl_response_bytes_total{class,source,status}`: body bytes sent;
/// - `pkgctl_request_duration_seconds{class,source}`: the access log's time, from the request
///   read to its answer's last write;
/// - `pkgctl_local_read_failures_total`: answers cut because a package or overlay file
///   could not be read (not counted as a client that left).
///
/// A label set's handles are made on its first request and kept, so later requests
/// only look them up.
final class ServerMetrics: Sendable {
    private struct Key: Hashable {
        let resourceClass: ResourceClass
        let source: String
        let status: Int
    }

    private final class Series: Sendable {
        let requests: Counter
        let bytes: Counter
        let duration: Timer

        init(_ key: Key) {
            let labels = [("class", key.resourceClass.rawValue), ("source", key.source)]
            let fullLabels = labels + [("status", String(key.status))]
            requests = Counter(label: "pkgctl_requests_total", dimensions: fullLabels)
            bytes = Counter(label: "pkgctl_response_bytes_total", dimensions: fullLabels)
            duration = Timer(label: "pkgctl_request_duration_seconds", dimensions: labels)
        }
    }

    private let series = PosixMutex<[Key: Series]>([:])
    private let localReadFailures = Counter(label: "pkgctl_local_read_failures_total")

    /// Counts an answer cut by a local read failure.
    func localReadFailed() {
        localReadFailures.increment()
    }

    /// Counts one answered request; `source` and `status` as in the access log.
    func record(_ resourceClass: ResourceClass, source: String, status: Int, bytes: Int, nanoseconds: Int64) {
        let key = Key(resourceClass: resourceClass, source: source, status: status)
        let handles = series.withLock { $0[key] } ?? makeSeries(key)
        handles.requests.increment()
        handles.bytes.increment(by: bytes)
        handles.duration.recordNanoseconds(nanoseconds)
    }

    private func makeSeries(_ key: Key) -> Series {
        let made = Series(key)
        return series.withLock { table in
            if let existing = table[key] { return existing }
            table[key] = made
            return made
        }
    }
}
