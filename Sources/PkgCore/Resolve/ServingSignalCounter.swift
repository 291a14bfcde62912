import Dispatch
import Logging
import Synchronization

/// One mounted package version's ``ServingSignals`` as its resolver counts them: two atomic
/// counters on the request path, added to the store's totals off it, at most
/// ``flushDelaySeconds`` after the first count not yet written, and when the mount goes away.
final class ServingSignalCounter: Sendable {
    let name: String
    let version: String
    private let layout: StoreLayout
    private let notFound = Atomic<Int>(0)
    private let originFallbacks = Atomic<Int>(0)
    private let flushPending = Atomic<Bool>(false)
    private let logger = Logger(label: "pkgctl.resolver")

    /// Seconds between the first unwritten count and its write.
    static let flushDelaySeconds = 1.0

    init(name: String, version: String, layout: StoreLayout) {
        self.name = name
        self.version = version
        self.layout = layout
    }

    deinit {
        // Off the thread that dropped the mount (a request's, the transfer loop's, one holding
        // the route table's lock): the write takes a lock and fsyncs.
        let counts = takeCounts(), name = name, version = version, layout = layout, logger = logger
        guard !counts.isEmpty else { return }
        DispatchQueue.global(qos: .utility).async { Self.write(counts, name: name, version: version, layout: layout, logger: logger) }
    }

    /// The origin was asked for a request under the version's routes that the version lacked.
    func countOriginFallback() {
        originFallbacks.add(1, ordering: .sequentiallyConsistent)
        scheduleFlush()
    }

    /// The origin answered `count` tasks under the version's routes with 404 or 410.
    func countNotFound(_ count: Int = 1) {
        notFound.add(count, ordering: .sequentiallyConsistent)
        scheduleFlush()
    }

    private func scheduleFlush() {
        guard flushPending.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.flushDelaySeconds) { [weak self] in
            self?.flush()
        }
    }

    /// Adds what was counted since the last write to the store's totals. A store the process
    /// cannot write loses the counts (logged): signals never fail a request.
    func flush() {
        Self.write(takeCounts(), name: name, version: version, layout: layout, logger: logger)
    }

    /// What was counted since the last write, leaving zero; the next count arms a flush again.
    private func takeCounts() -> ServingSignals {
        flushPending.store(false, ordering: .sequentiallyConsistent)
        return ServingSignals(notFound: notFound.exchange(0, ordering: .sequentiallyConsistent),
                              originFallbacks: originFallbacks.exchange(0, ordering: .sequentiallyConsistent))
    }

    private static func write(_ counts: ServingSignals, name: String, version: String, layout: StoreLayout, logger: Logger) {
        guard !counts.isEmpty else { return }
        do {
            try ServingSignals.add(counts, name: name, version: version, layout: layout)
        } catch {
            logger.warning("signals of \(name) \(version) not recorded: \(error)")
        }
    }
}
