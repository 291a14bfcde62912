import FoundationEssentials

/// The state of one started task: the gate every delivery passes through and
/// its flow-control window. See ``TaskTable`` and ``TaskDelivery``.
///
/// Two sides meet here under one recursive lock. The source side (a local read,
/// an upstream fetch) moves `phase` forward when it hands something over; the
/// host side sets `stopped`. A callback runs only while holding the lock and
/// only if the task is not stopped, whether it runs at once (direct delivery)
/// or later on the host's executor.
final class TaskEntry: @unchecked Sendable {
    private enum Phase { case started, responded, done }

    let task: any ResourceTask
    private let executor: (any CallbackExecutor)?
    private let window: Int
    private let consumesOnReturn: Bool
    private weak var table: TaskTable?
    private let lock = RecursiveLock()
    private var phase = Phase.started
    private var stopped = false
    private var cancellation: (@Sendable () -> Void)?
    /// Body bytes handed over and not yet consumed.
    private var unconsumed = 0
    /// Called once the host has drained half the window, when a source is waiting for room.
    private var onRoom: (@Sendable () -> Void)?

    init(task: any ResourceTask, delivery: TaskDelivery, table: TaskTable) {
        self.task = task
        self.table = table
        executor = delivery.executor
        window = delivery.window
        consumesOnReturn = delivery.consumption == .onReturn
    }

    /// Whether the source should go on producing for this task.
    var isLive: Bool {
        lock.lock(); defer { lock.unlock() }
        return !stopped && phase != .done
    }

    /// Sets what `stop` must undo (leave an upstream fetch, ...). When the task is
    /// already stopped, runs it at once and returns false.
    @discardableResult
    func onStop(_ body: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        if stopped || phase == .done {
            let wasStopped = stopped
            lock.unlock()
            if wasStopped { body() }
            return false
        }
        cancellation = body
        lock.unlock()
        return true
    }

    /// Silences the task and undoes its source; true when that source had not ended yet.
    @discardableResult
    func stop() -> Bool {
        lock.lock()
        let wasLive = !stopped && phase != .done
        stopped = true
        let body = cancellation
        cancellation = nil
        onRoom = nil
        lock.unlock()
        if wasLive { body?() }
        return wasLive
    }

    // MARK: Flow control

    /// True when the task can take more body bytes now. Otherwise keeps `resume`,
    /// to be called once (from the thread that consumes) when the host has drained
    /// half the window; a stopped or finished task never holds a source back.
    func hasRoom(orCall resume: @escaping @Sendable () -> Void) -> Bool {
        lock.lock(); defer { lock.unlock() }
        if stopped || phase == .done || unconsumed < window { return true }
        onRoom = resume
        return false
    }

    /// The host consumed `count` delivered bytes (more than were delivered counts as all of
    /// them; a count below zero as none).
    func consumed(_ count: Int) {
        lock.lock()
        unconsumed = count >= unconsumed ? 0 : unconsumed - max(0, count)
        var resume: (@Sendable () -> Void)?
        if onRoom != nil, unconsumed <= window / 2 {
            resume = onRoom
            onRoom = nil
        }
        lock.unlock()
        resume?()
    }

    // MARK: Deliveries (source side)

    /// Delivers the response; false when the task is no longer live.
    @discardableResult
    func deliver(_ response: ResourceResponse) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !stopped, phase == .started else { return false }
        phase = .responded
        run { $0.didReceive(response) }
        return !stopped && phase == .responded
    }

    /// Delivers a chunk of body; false when the task is no longer live.
    @discardableResult
    func deliver(_ data: UnsafeRawBufferPointer) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !stopped, phase == .responded else { return false }
        guard !data.isEmpty else { return true }
        let count = data.count
        unconsumed += count
        var after: (@Sendable (TaskEntry) -> Void)?
        if consumesOnReturn { after = { entry in entry.consumed(count) } }
        if executor == nil {
            task.didReceive(data)
            after?(self)
        } else {
            let copy = [UInt8](data)
            run({ task in copy.withUnsafeBytes { task.didReceive($0) } }, after: after)
        }
        return !stopped && phase == .responded
    }

    func finish() {
        lock.lock()
        guard !stopped, phase == .responded else { lock.unlock(); return }
        end { $0.didFinish() }
    }

    func fail(_ error: PkgError) {
        lock.lock()
        guard !stopped, phase != .done else { lock.unlock(); return }
        end { $0.didFail(error) }
    }

    /// With the lock held: the last callback. The entry leaves the table once it has run.
    private func end(_ call: @escaping @Sendable (any ResourceTask) -> Void) {
        phase = .done
        cancellation = nil
        onRoom = nil
        if executor == nil {
            call(task)
            lock.unlock()
            table?.remove(self)
        } else {
            run(call) { entry in entry.table?.remove(entry) }
            lock.unlock()
        }
    }

    /// With the lock held: calls the task now (direct delivery), or on the
    /// executor if it has not been stopped by then; `after` follows either way.
    private func run(_ call: @escaping @Sendable (any ResourceTask) -> Void,
                     after: (@Sendable (TaskEntry) -> Void)? = nil) {
        guard let executor else {
            call(task)
            after?(self)
            return
        }
        executor.execute { [self] in
            lock.lock()
            let live = !stopped
            if live { call(task) }
            lock.unlock()
            after?(self)
        }
    }
}
