import Dispatch
import FoundationEssentials
import NIOConcurrencyHelpers

/// One upstream fetch and every live task waiting on it (coalescing), plus its
/// write-through. Callbacks from the transfer arrive on the loop thread.
///
/// Joining: a task joins while the response head has not arrived yet. After
/// that the fetch leaves the coalescing table, so a later miss for the same
/// URL starts its own fetch (no replay buffer is kept).
///
/// Leaving: when the last task stops, the transfer is cancelled — unless the
/// answer is already known to be cacheable and is being written through, in
/// which case it runs to the end for the overlay.
///
/// Pace: before each chunk, every live task must have room in its window;
/// otherwise the transfer pauses, and the first task to drain (or leave) asks
/// the loop to resume it. A task whose window stays too full to go on for
/// ``ResolverConfiguration/stalledReaderSeconds`` while it holds back another
/// task or the overlay write fails and is dropped, so one stalled reader cannot
/// hold a shared fetch past the origin's own send timeout.
final class UpstreamFetch: UpstreamTransferSink, @unchecked Sendable {
    let plan: UpstreamPlan
    private unowned let owner: UpstreamFetchCoalescer
    private let lock = NIOLock()
    private var subscribers: [TaskEntry] = []
    private var headArrived = false
    private var cancelRequested = false
    private var ended = false
    private var writer: OverlayWriter?
    private var expectedLength: Int64?
    private var transfer: UpstreamTransfer?
    /// Chunks let through so far: a stall check that finds it unchanged knows the transfer stayed paused.
    private var admittedChunks = 0
    /// The task the current pause waits for, and ``admittedChunks`` when it began.
    private var stall: (entry: TaskEntry, admitted: Int)?
    private let started = ResolverMetrics.now()

    init(plan: UpstreamPlan, owner: UpstreamFetchCoalescer) {
        self.plan = plan
        self.owner = owner
    }

    func attach(_ transfer: UpstreamTransfer) {
        lock.lock()
        self.transfer = transfer
        lock.unlock()
    }

    /// Adds a task; false when it is too late to join (head arrived, cancelling, ended).
    func join(_ entry: TaskEntry) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard !headArrived, !cancelRequested, !ended else { return false }
        subscribers.append(entry)
        return true
    }

    /// A task stopped: drop it; cancel the transfer when nobody (task or overlay) needs it.
    func leave(_ entry: TaskEntry) {
        lock.lock()
        subscribers.removeAll { $0 === entry }
        let cancel = subscribers.isEmpty && writer == nil && !cancelRequested && !ended
        if cancel { cancelRequested = true }
        let transfer = cancel ? self.transfer : nil
        lock.unlock()
        if cancel {
            owner.forget(self)
            if let transfer { owner.loop.cancel(transfer) }
        } else {
            requestResume()
        }
    }

    /// Asks the loop to resume the transfer. The loop thread then re-checks every task's room
    /// (``transferAdmitsBody()``) before the next chunk, so a host thread never takes another
    /// task's lock here; a resume of a transfer that is not paused does nothing.
    private func requestResume() {
        lock.lock()
        let transfer = ended ? nil : self.transfer
        lock.unlock()
        if let transfer { owner.loop.resume(transfer) }
    }

    // MARK: UpstreamTransferSink (loop thread; each call of libcurl's write callback asks `transferAdmitsBody` first)

    func transferReceived(status: Int, headers: [(name: String, value: String)]) -> Bool {
        let response = ResourceResponse(status: status, headers: headers)
        var newWriter: OverlayWriter?
        if let key = plan.overlayKey, Self.isCacheable(response) {
            switch VaryHeader(headers) {
            case .none: newWriter = owner.overlay.makeWriter(key: key)
            case .fields(let fields):
                newWriter = owner.overlay.makeRepresentationWriter(key: key, fields: fields, headers: plan.headers,
                                                                   contentType: response.header("Content-Type"))
            case .any: break  // isCacheable refused it
            }
            if newWriter == nil { owner.metrics.overlayCommitted(false) }
        }
        lock.lock()
        headArrived = true
        writer = newWriter
        // HEAD, 1xx, 204 and 304 answers have no body, whatever Content-Length says.
        let hasBody = plan.method != "HEAD" && status >= 200 && status != 204 && status != 304
        expectedLength = hasBody ? response.contentLength : nil
        let targets = subscribers
        lock.unlock()
        owner.forget(self)
        if status == 404 || status == 410 { plan.signals?.countNotFound(targets.count) }
        var anyLive = false
        for entry in targets where entry.deliver(response) { anyLive = true }
        if !anyLive { pruneDead() }
        return anyLive || newWriter != nil
    }

    func transferAdmitsBody() -> Bool {
        lock.lock()
        let targets = subscribers
        lock.unlock()
        for entry in targets where !entry.hasRoom(orCall: { [weak self] in self?.requestResume() }) {
            noteStall(of: entry)
            return false
        }
        lock.lock()
        admittedChunks += 1
        stall = nil
        lock.unlock()
        return true
    }

    /// The transfer paused for `entry`: once per pause, check back after the stall limit.
    private func noteStall(of entry: TaskEntry) {
        lock.lock()
        let isNew = stall?.entry !== entry || stall?.admitted != admittedChunks
        if isNew { stall = (entry, admittedChunks) }
        let admitted = admittedChunks
        lock.unlock()
        guard isNew else { return }
        let limit = owner.stalledReaderSeconds
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [weak self] in
            self?.dropIfStillStalled(entry, admitted: admitted, after: limit)
        }
    }

    /// Fails and drops `entry` if the transfer is still paused for it and it holds back
    /// another task or the overlay write; the transfer then goes on without it.
    private func dropIfStillStalled(_ entry: TaskEntry, admitted: Int, after limit: Double) {
        lock.lock()
        let holdsOthersBack = subscribers.count > 1 || writer != nil
        let drop = !ended && holdsOthersBack && stall?.entry === entry && admittedChunks == admitted
            && subscribers.contains { $0 === entry }
        if drop {
            subscribers.removeAll { $0 === entry }
            stall = nil
        }
        lock.unlock()
        guard drop else { return }
        let seconds = DecimalText.tenths(limit, droppingZeroTenth: true)
        entry.fail(PkgError(.transferFailed, "\(plan.url): the reader made no room for \(seconds) s while the fetch "
                            + "it shares waited; it was dropped"))
        requestResume()
    }

    func transferReceived(_ data: UnsafeRawBufferPointer) -> Bool {
        lock.lock()
        let writer = self.writer
        let targets = subscribers
        lock.unlock()
        writer?.write(data)
        var anyLive = false
        var anyDead = false
        for entry in targets {
            if entry.deliver(data) { anyLive = true } else { anyDead = true }
        }
        if anyDead { pruneDead() }
        return anyLive || writer != nil
    }

    func transferCompleted(error: PkgError?, bodyBytes: Int64) {
        let (writer, targets, expected) = end()
        if let error {
            abandon(writer)
            for entry in targets { entry.fail(error) }
            owner.fetchEnded()
            return
        }
        if let expected, expected != bodyBytes {
            abandon(writer)
            let error = PkgError(.transferFailed, "\(plan.url): body has \(bodyBytes) of \(expected) bytes")
            for entry in targets { entry.fail(error) }
            owner.fetchEnded()
            return
        }
        if let writer {
            owner.commitQueue.async { [owner] in
                owner.metrics.overlayCommitted(writer.commit(expectedLength: expected))
                owner.fetchEnded()
            }
        } else {
            owner.fetchEnded()
        }
        for entry in targets { entry.finish() }  // after the commit is queued: see Resolver.waitForOverlayCommits
    }

    func transferCancelled() {
        let (writer, targets, _) = end()
        abandon(writer)
        let error = PkgError(.transferFailed, "\(plan.url): cancelled")
        for entry in targets { entry.fail(error) }
        owner.fetchEnded()
    }

    /// Marks the transfer over, takes what the fetch still holds (the write-through, the
    /// readers, the announced length) and lets the coalescer forget it.
    private func end() -> (writer: OverlayWriter?, readers: [TaskEntry], expectedLength: Int64?) {
        lock.lock()
        ended = true
        let held = (writer, subscribers, expectedLength)
        writer = nil
        subscribers.removeAll()
        transfer = nil
        lock.unlock()
        owner.forget(self)
        owner.metrics.fetchEnded(plan.resourceClass, startedAt: started)
        return held
    }

    /// Drops a write-through that will not be published.
    private func abandon(_ writer: OverlayWriter?) {
        guard let writer else { return }
        writer.discard()
        owner.metrics.overlayCommitted(false)
    }

    private func pruneDead() {
        lock.lock()
        subscribers.removeAll { !$0.isLive }
        lock.unlock()
    }

    /// A 200 without `Set-Cookie`, `Cache-Control: no-store`/`private`, a content coding, or
    /// `Vary: *` (an answer for its own request alone).
    static func isCacheable(_ response: ResourceResponse) -> Bool {
        guard response.status == 200, VaryHeader(response.headers) != .any else { return false }
        for field in response.headers {
            if asciiCaseInsensitiveEqual(field.name, "Set-Cookie") { return false }
            if asciiCaseInsensitiveEqual(field.name, "Cache-Control"),
               field.value.containsASCIICaseInsensitive("no-store") || field.value.containsASCIICaseInsensitive("private") {
                return false
            }
            if asciiCaseInsensitiveEqual(field.name, "Content-Encoding"), !asciiCaseInsensitiveEqual(field.value, "identity") {
                return false
            }
        }
        return true
    }
}
