import CoreMetrics
import Dispatch

/// What a ``Resolver`` counts, through swift-metrics: the backend the process
/// bootstrapped (`MetricsSystem.bootstrap`) before the resolver was made gets it;
/// without one it goes nowhere. The handles are made once, with the resolver.
///
/// - `pkgctl_origin_fetches_total{class}`: origin fetches started (a coalesced waiter starts none);
/// - `pkgctl_origin_fetch_duration_seconds{class}`: from a fetch's start until its transfer
///   ended, failed or was cancelled;
/// - `pkgctl_coalesced_waiters_total{class}`: tasks that joined a fetch already under way;
/// - `pkgctl_overlay_commits_total{result}`: write-through entries published (`ok`), or
///   started and not published (`failed`: the transfer failed or was short, the file could
///   not be written or renamed into place);
/// - `pkgctl_tasks_in_flight`: tasks started and not yet finished, failed or stopped;
/// - `pkgctl_task_stops_total`: tasks stopped before their source (local read, origin fetch) ended.
final class ResolverMetrics: Sendable {
    private let fetches: [ResourceClass: Counter]
    private let fetchDurations: [ResourceClass: Timer]
    private let coalescedWaiters: [ResourceClass: Counter]
    private let overlayCommits: Counter
    private let overlayFailures: Counter
    private let tasksInFlight: Meter
    private let taskStops: Counter
    private let routeReloadFailures: Counter

    init() {
        func perClass<Handle>(_ make: (ResourceClass) -> Handle) -> [ResourceClass: Handle] {
            Dictionary(uniqueKeysWithValues: ResourceClass.allCases.map { ($0, make($0)) })
        }
        fetches = perClass { Counter(label: "pkgctl_origin_fetches_total", dimensions: [("class", $0.rawValue)]) }
        fetchDurations = perClass {
            Timer(label: "pkgctl_origin_fetch_duration_seconds", dimensions: [("class", $0.rawValue)])
        }
        coalescedWaiters = perClass {
            Counter(label: "pkgctl_coalesced_waiters_total", dimensions: [("class", $0.rawValue)])
        }
        overlayCommits = Counter(label: "pkgctl_overlay_commits_total", dimensions: [("result", "ok")])
        overlayFailures = Counter(label: "pkgctl_overlay_commits_total", dimensions: [("result", "failed")])
        tasksInFlight = Meter(label: "pkgctl_tasks_in_flight")
        taskStops = Counter(label: "pkgctl_task_stops_total")
        routeReloadFailures = Counter(label: "pkgctl_route_reload_failures_total")
    }

    /// A monotonic time stamp to pass to ``fetchEnded(_:startedAt:)``.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func fetchStarted(_ resourceClass: ResourceClass) {
        fetches[resourceClass]?.increment()
    }

    func fetchEnded(_ resourceClass: ResourceClass, startedAt start: UInt64) {
        fetchDurations[resourceClass]?.recordNanoseconds(Int64(clamping: Self.now() &- start))
    }

    func waiterJoined(_ resourceClass: ResourceClass) {
        coalescedWaiters[resourceClass]?.increment()
    }

    func overlayCommitted(_ published: Bool) {
        (published ? overlayCommits : overlayFailures).increment()
    }

    func taskStarted() { tasksInFlight.increment() }

    func taskEnded() { tasksInFlight.decrement() }

    /// A task stopped before its source ended (counted by ``taskEnded()`` too).
    func taskStopped() { taskStops.increment() }

    /// The store changed and its routes could not be read again; the previous ones still serve.
    func routeReloadFailed() { routeReloadFailures.increment() }
}
