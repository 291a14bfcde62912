import Foundation
import Synchronization

/// The started tasks, and the one gate every delivery passes through.
///
/// Each started task gets a ``TaskEntry`` whose lock serialises everything said
/// to that task with its `stop`: a delivery checks and calls the task while
/// holding the lock, and `stop` marks the entry stopped under the same lock, so
/// once `stop` returns nothing reaches the task again, whatever finishes later
/// (the fix for WKURLSchemeTask's "task was stopped" crash). No `await` sits
/// between the check and the call. The lock is recursive, so a task may call
/// `stop` from inside one of its callbacks.
final class TaskTable: Sendable {
    private let entries = Mutex<[ObjectIdentifier: TaskEntry]>([:])

    /// Registers `task`; nil when it is already started (a second start is ignored).
    func insert(_ task: any ResourceTask) -> TaskEntry? {
        let entry = TaskEntry(task: task, table: self)
        let inserted = entries.withLock { table -> Bool in
            let id = ObjectIdentifier(task)
            if table[id] != nil { return false }
            table[id] = entry
            return true
        }
        return inserted ? entry : nil
    }

    /// Removes and stops the entry of `task`; runs its cancellation outside every lock.
    func stop(_ task: any ResourceTask) {
        let entry = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        entry?.stop()
    }

    func remove(_ entry: TaskEntry) {
        entries.withLock { table in
            let id = ObjectIdentifier(entry.task)
            if table[id] === entry { table[id] = nil }
        }
    }

    /// How many tasks are started and not yet finished, failed or stopped.
    var count: Int { entries.withLock { $0.count } }
}

/// The state of one started task. See ``TaskTable``.
final class TaskEntry: @unchecked Sendable {
    enum Phase { case started, responded, done, stopped }

    let task: any ResourceTask
    private weak var table: TaskTable?
    private let lock = NSRecursiveLock()
    private var phase = Phase.started
    private var cancellation: (@Sendable () -> Void)?

    init(task: any ResourceTask, table: TaskTable) {
        self.task = task
        self.table = table
    }

    /// Whether the task still accepts deliveries.
    var isLive: Bool {
        lock.lock(); defer { lock.unlock() }
        return phase == .started || phase == .responded
    }

    /// Sets what `stop` must undo (leave an upstream fetch, ...). When the task is
    /// already stopped, runs it at once and returns false.
    @discardableResult
    func onStop(_ body: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        let current = phase
        if current == .stopped || current == .done {
            lock.unlock()
            if current == .stopped { body() }
            return false
        }
        cancellation = body
        lock.unlock()
        return true
    }

    func stop() {
        lock.lock()
        let wasLive = phase == .started || phase == .responded
        phase = .stopped
        let body = cancellation
        cancellation = nil
        lock.unlock()
        if wasLive { body?() }
    }

    /// Delivers the response; false when the task is no longer live.
    @discardableResult
    func deliver(_ response: ResourceResponse) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard phase == .started else { return false }
        phase = .responded
        task.didReceive(response)
        return phase == .responded
    }

    @discardableResult
    func deliver(_ data: UnsafeRawBufferPointer) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard phase == .responded else { return false }
        if !data.isEmpty { task.didReceive(data) }
        return phase == .responded
    }

    func finish() {
        lock.lock()
        guard phase == .responded else { lock.unlock(); return }
        phase = .done
        cancellation = nil
        task.didFinish()
        lock.unlock()
        table?.remove(self)
    }

    func fail(_ error: PkgError) {
        lock.lock()
        guard phase == .started || phase == .responded else { lock.unlock(); return }
        phase = .done
        cancellation = nil
        task.didFail(error)
        lock.unlock()
        table?.remove(self)
    }
}
