import CPkgResolver
import PkgCore

/// The counters `pkgctl_resolver_get_counters()` and `pkgctl_resolver_counters_get()` read, shared by a resolver's tasks.
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

    /// The snapshot as `pkgctl_counters` (since 0.1), whole; ``SizedStruct/write(_:to:fieldEnds:)`` writes what the host's fits.
    var sizedSnapshot: pkgctl_counters {
        let values = snapshot
        return pkgctl_counters(struct_size: UInt32(MemoryLayout<pkgctl_counters>.size), tasks_started: values.tasks_started,
                               tasks_succeeded: values.tasks_succeeded, tasks_failed: values.tasks_failed,
                               tasks_stopped: values.tasks_stopped, body_bytes: values.body_bytes,
                               callbacks: values.callbacks)
    }

    /// Where each field of `pkgctl_counters` after `struct_size` ends.
    static let sizedFieldEnds: [Int] = {
        let fields: [KeyPath<pkgctl_counters, UInt64>] = [\.tasks_started, \.tasks_succeeded, \.tasks_failed,
                                                          \.tasks_stopped, \.body_bytes, \.callbacks]
        return fields.map { MemoryLayout<pkgctl_counters>.offset(of: $0)! + MemoryLayout<UInt64>.size }
    }()
}
