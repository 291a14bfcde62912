import CPkgResolver
import FuzzSupport
import Glibc
import Synchronization

/// One task started through the C ABI and everything its callbacks saw. The callbacks
/// check, as they run, the contract the header states: nothing after `pkgctl_task_stop`
/// returned (`stopReturned`, set by whichever thread stopped it), a head at most once and
/// before the body, the end exactly once and last, and a complete 200 body equal to the file.
final class ObservedTask {
    /// The task's handle; nil once stopped (the handle is released then).
    var handle: OpaquePointer?
    /// The request's expected body for a full 200 answer, when the fixture knows it.
    let expected: [UInt8]?
    let isHead: Bool
    /// With explicit consumption: the most body bytes that may be delivered and not consumed
    /// (the window plus one 64 KiB chunk, as `TaskDelivery` promises); nil when consumed on return.
    let unconsumedLimit: Int?
    /// Set after `pkgctl_task_stop` returned, by the thread that called it.
    let stopReturned = Atomic<Bool>(false)
    /// Stop from inside the next body callback.
    var stopInNextData = false
    /// Set after the resolver that ran the task was destroyed.
    var resolverDestroyed = false
    /// What `pkgctl_resolver_plan` said of its request before it started (enum pkgctl_source).
    var plannedSource: Int32 = 0

    private(set) var status: Int32 = 0
    private(set) var headCount = 0
    private(set) var encoded = false
    private(set) var bodyBytes = 0
    private(set) var consumedBytes = 0
    private(set) var callbacks = 0
    private(set) var result: Int32?
    private(set) var bodyMatches = true

    init(expected: [UInt8]?, isHead: Bool, unconsumedLimit: Int?) {
        self.expected = expected
        self.isHead = isHead
        self.unconsumedLimit = unconsumedLimit
    }

    /// Whether the end was delivered.
    var ended: Bool { result != nil }
    /// Delivered body bytes the host has not reported consumed.
    var unconsumed: Int { bodyBytes - consumedBytes }

    /// The host reported more consumed than it was given: the resolver then counts bytes
    /// still queued for dispatch as consumed too, so the window no longer bounds what arrives.
    private(set) var overReported = false

    /// Notes `count` bytes reported consumed (at most what was delivered counts).
    func noteConsumed(_ count: Int) {
        if count > unconsumed { overReported = true }
        consumedBytes += min(count, unconsumed)
    }

    /// The callbacks every task gets; `user` is the unretained `ObservedTask`.
    static let callbacks = pkgctl_task_callbacks(
        response: { user, status, headers, count in
            let task = Unmanaged<ObservedTask>.fromOpaque(user!).takeUnretainedValue()
            task.checkLive("response")
            fuzzCheck(task.headCount == 0 && task.bodyBytes == 0, "a second head, or a head after body bytes")
            task.headCount += 1
            task.status = status
            for field in UnsafeBufferPointer(start: headers, count: count) {
                // Reading every byte lets ASan see a pointer that is not valid during the call.
                let name = String(cString: field.name!), value = String(cString: field.value!)
                if name.lowercased() == "content-encoding" && !value.isEmpty { task.encoded = true }
            }
        },
        data: { user, bytes, length in
            let task = Unmanaged<ObservedTask>.fromOpaque(user!).takeUnretainedValue()
            task.checkLive("data")
            fuzzCheck(task.headCount == 1, "body bytes before the head")
            fuzzCheck(length > 0 && bytes != nil, "an empty body callback")
            let chunk = UnsafeRawBufferPointer(start: bytes, count: length)
            if let expected = task.expected, task.status == 200, !task.encoded {
                task.bodyMatches = task.bodyMatches && task.bodyBytes + length <= expected.count
                    && chunk.elementsEqual(expected[task.bodyBytes..<min(expected.count, task.bodyBytes + length)])
            }
            task.bodyBytes += length
            if let limit = task.unconsumedLimit, !task.overReported {
                fuzzCheck(task.unconsumed <= limit, "\(task.unconsumed) body bytes delivered and not consumed, past \(limit)")
            }
            if task.stopInNextData, let handle = task.handle {
                task.handle = nil
                pkgctl_task_stop(handle)
                task.stopReturned.store(true, ordering: .sequentiallyConsistent)
            }
        },
        end: { user, result, message in
            let task = Unmanaged<ObservedTask>.fromOpaque(user!).takeUnretainedValue()
            task.checkLive("end")
            fuzzCheck((PKGCTL_OK.rawValue...PKGCTL_ERR_OTHER.rawValue).contains(UInt32(bitPattern: result)),
                      "end with result \(result)")
            fuzzCheck((result == 0) == (message == nil), "result \(result) with message \(message.map { String(cString: $0) } ?? "nil")")
            if let message {
                fuzzCheck(strlen(message) > 0 && strchr(message, 0x0a) == nil,
                          "an empty or multi-line message: \(String(cString: message).debugDescription)")
            }
            if result == 0 {
                fuzzCheck(task.headCount == 1, "a successful end without a head")
                if task.isHead { fuzzCheck(task.bodyBytes == 0, "a HEAD answer with \(task.bodyBytes) body bytes") }
                if let expected = task.expected, task.status == 200, !task.encoded, !task.isHead {
                    fuzzCheck(task.bodyMatches && task.bodyBytes == expected.count,
                              "a 200 body of \(task.bodyBytes) bytes that is not the file's \(expected.count)")
                }
            }
            task.result = result
        })

    /// Every callback: the task is neither stopped nor ended, and its resolver is alive.
    private func checkLive(_ callback: String) {
        callbacks += 1
        fuzzCheck(!stopReturned.load(ordering: .sequentiallyConsistent), "\(callback) callback after pkgctl_task_stop returned")
        fuzzCheck(!resolverDestroyed, "\(callback) callback after pkgctl_resolver_destroy")
        fuzzCheck(result == nil, "\(callback) callback after the end")
    }
}
