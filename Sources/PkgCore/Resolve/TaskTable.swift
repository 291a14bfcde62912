import FoundationEssentials

/// The started tasks, and the one gate every delivery passes through.
///
/// Each started task gets a ``TaskEntry`` whose lock serialises everything said
/// to that task with its `stop`: a delivery checks and calls the task while
/// holding the lock, and `stop` marks the entry stopped under the same lock, so
/// once `stop` returns nothing reaches the task again, whatever finishes later
/// (the fix for WKURLSchemeTask's "task was stopped" crash). No `await` sits
/// between the check and the call. The lock is recursive, so a task may call
/// `stop` from inside one of its callbacks.
///
/// A task delivered through a ``CallbackExecutor`` stays in the table until its
/// last callback has run on the executor, so a `stop` that comes between the
/// source finishing and that callback still silences it.
final class TaskTable: Sendable {
    private let entries = PosixMutex<[ObjectIdentifier: TaskEntry]>([:])
    private let metrics: ResolverMetrics

    init(metrics: ResolverMetrics) {
        self.metrics = metrics
    }

    /// Registers `task`; nil when it is already started (a second start is ignored).
    func insert(_ task: any ResourceTask, delivery: TaskDelivery) -> TaskEntry? {
        let entry = TaskEntry(task: task, delivery: delivery, table: self)
        let inserted = entries.withLock { table -> Bool in
            let id = ObjectIdentifier(task)
            if table[id] != nil { return false }
            table[id] = entry
            return true
        }
        guard inserted else { return nil }
        metrics.taskStarted()
        return entry
    }

    /// Removes and stops the entry of `task`; runs its cancellation outside every lock.
    func stop(_ task: any ResourceTask) {
        guard let entry = entries.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        metrics.taskEnded()
        if entry.stop() { metrics.taskStopped() }
    }

    /// The entry of `task`, while it is started.
    func entry(of task: any ResourceTask) -> TaskEntry? {
        entries.withLock { $0[ObjectIdentifier(task)] }
    }

    func remove(_ entry: TaskEntry) {
        let removed = entries.withLock { table -> Bool in
            let id = ObjectIdentifier(entry.task)
            guard table[id] === entry else { return false }
            table[id] = nil
            return true
        }
        if removed { metrics.taskEnded() }
    }

    /// How many tasks are started and not yet finished, failed or stopped.
    var count: Int { entries.withLock { $0.count } }
}
