import CPkgResolver
import PkgCore

/// The counters `pkgctl_resolver_get_counters()` reads, shared by a resolver's tasks.
final class HostCounters: Sendable {
    /// How a task ended.
    enum Ending { case succeeded, failed, stopped }

    private let values = PosixMutex(pkgctl_resolver_counters())

    func add(started: Int = 0, callbacks: Int = 0, bodyBytes: Int = 0) {
        values.withLock {
            $0.tasks_started += UInt64(started)
            $0.callbacks += UInt64(callbacks)
            $0.body_bytes += UInt64(bodyBytes)
        }
    }

    func add(ended: Ending) {
        values.withLock {
            switch ended {
            case .succeeded: $0.tasks_succeeded += 1
            case .failed: $0.tasks_failed += 1
            case .stopped: $0.tasks_stopped += 1
            }
        }
    }

    var snapshot: pkgctl_resolver_counters { values.withLock { $0 } }
}
