import Dispatch
import NIOConcurrencyHelpers

/// Starts fetches, shares concurrent identical misses, counts what is in flight.
final class UpstreamFetchCoalescer: @unchecked Sendable {
    let loop = CurlMultiLoop()
    let overlay: Overlay
    let commitQueue = DispatchQueue(label: "pkgctl.overlay-commit")
    let caFile: String?
    let connectTimeoutMilliseconds: Int
    /// How long one reader may pause a fetch that others wait on (``UpstreamFetch``).
    let stalledReaderSeconds: Double
    let metrics: ResolverMetrics
    private let lock = NIOLock()
    private var shared: [String: UpstreamFetch] = [:]
    private var inFlight = 0

    init(overlay: Overlay, caFile: String?, connectTimeoutMilliseconds: Int, stalledReaderSeconds: Double,
         metrics: ResolverMetrics) {
        self.overlay = overlay
        self.caFile = caFile
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.stalledReaderSeconds = stalledReaderSeconds
        self.metrics = metrics
    }

    /// Fetches, from creation until the transfer ended and its overlay entry (if any) is committed.
    var transfersInFlight: Int {
        lock.lock(); defer { lock.unlock() }
        return inFlight
    }

    /// Sends `entry` the origin's answer for `plan`, sharing a fetch already under way when allowed.
    func fetch(_ plan: UpstreamPlan, for entry: TaskEntry) {
        lock.lock()
        if let key = plan.coalescingKey, let existing = shared[key], existing.join(entry) {
            lock.unlock()
            metrics.waiterJoined(plan.resourceClass)
            entry.onStop { [weak existing] in existing?.leave(entry) }
            return
        }
        let fetch = UpstreamFetch(plan: plan, owner: self)
        _ = fetch.join(entry)
        if let key = plan.coalescingKey { shared[key] = fetch }
        inFlight += 1
        lock.unlock()
        metrics.fetchStarted(plan.resourceClass)
        let transfer: UpstreamTransfer
        do {
            transfer = try UpstreamTransfer(url: plan.url, method: plan.method, headers: plan.headers, body: plan.body,
                                            caFile: caFile, connectTimeoutMilliseconds: connectTimeoutMilliseconds,
                                            sink: fetch)
        } catch let error as PkgError {
            fetch.transferCompleted(error: error, bodyBytes: 0)
            return
        } catch {
            fetch.transferCompleted(error: PkgError(.transferFailed, "\(plan.url): \(error)"), bodyBytes: 0)
            return
        }
        fetch.attach(transfer)
        loop.add(transfer)
        entry.onStop { [weak fetch] in fetch?.leave(entry) }
    }

    /// Removes `fetch` from the coalescing table (if it is the one there).
    func forget(_ fetch: UpstreamFetch) {
        guard let key = fetch.plan.coalescingKey else { return }
        lock.lock()
        if shared[key] === fetch { shared[key] = nil }
        lock.unlock()
    }

    func fetchEnded() {
        lock.lock()
        inFlight -= 1
        lock.unlock()
    }

    func shutdown() {
        loop.shutdown()
        commitQueue.sync {}
    }
}
