import CPkgResolver
import FuzzSupport
import Glibc

/// A resolver made through `pkgctl_resolver_create` over the fixture store and driven as a C
/// host would: tasks started, stopped (from the dispatching thread, from inside a body
/// callback, or from another thread while callbacks are being dispatched), bytes reported
/// consumed, callbacks dispatched from the descriptor, and destroyed with tasks still running.
/// Never reaches a network: offline, or an upstream on 127.0.0.1:9 where nothing listens.
final class ABISession {
    /// Tasks the host has not stopped, at most this many.
    static let maxLive = 32

    private let resolver: OpaquePointer
    private let unconsumedLimit: Int?
    private var live: [ObservedTask] = []
    private var all: [ObservedTask] = []

    /// A resolver with settings from `byte`: offline or not, explicit consumption, and the window.
    init(settings byte: UInt8) {
        let window: UInt64 = [0, 1, 4096, 65536][Int(byte >> 2) & 3]
        let explicit = byte & 2 != 0
        var options = pkgctl_resolver_options()
        options.struct_size = UInt32(MemoryLayout<pkgctl_resolver_options>.size)
        options.offline = Int32(byte & 1)
        options.explicit_consumption = explicit ? 1 : 0
        options.window = window
        var error = [CChar](repeating: 0, count: 256)
        let made = FixtureStore.root.withCString { root in
            "http://127.0.0.1:9".withCString { upstream in
                options.store_root = root
                options.upstream = upstream
                return pkgctl_resolver_create(&options, &error, error.count)
            }
        }
        guard let made else { fatalError("fixture resolver: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))") }
        resolver = made
        // The window plus one 64 KiB chunk (the resolver's default chunk size); 0 means 1 MiB.
        unconsumedLimit = explicit ? Int(window == 0 ? 1 << 20 : window) + 64 * 1024 : nil
    }

    /// `pkgctl_task_start` with a request from `script`: a URL of the fixture (or made of input
    /// bytes), a method, up to three headers (known ones, or made of input bytes) and a body.
    func start(_ script: inout ByteScript) {
        guard live.count < Self.maxLive else { return }
        let pick = Int(script.next())
        let request = pick < ABIRequest.table.count * 16 ? ABIRequest.table[pick % ABIRequest.table.count]
            : ABIRequest(url: "app://" + script.string(limit: 48), expected: nil)
        let method = ["GET", "GET", "HEAD", "POST", "OPTIONS", ""][Int(script.next()) % 6]
        var fields: [(String, String)] = []
        for _ in 0..<(Int(script.next()) % 4) {
            switch script.next() % 6 {
            case 0: fields.append(("Accept", "image/avif,image/webp,*/*"))
            case 1: fields.append(("Range", "bytes=\(script.next())-\(Int(script.next()) * 1000)"))
            case 2: fields.append(("Accept-Encoding", "gzip, br"))
            case 3: fields.append(("If-None-Match", "\"x\""))
            default: fields.append((script.string(limit: 16), script.string(limit: 24)))
            }
        }
        let body = method == "POST" ? Array(script.string(limit: 32).utf8) : []
        let task = ObservedTask(expected: request.expected, isHead: method == "HEAD", unconsumedLimit: unconsumedLimit)
        task.plannedSource = plan(method, request.url, fields)
        let user = Unmanaged.passUnretained(task).toOpaque()
        task.handle = withCStrings(fields) { headers in
            withUnsafePointer(to: ObservedTask.callbacks) { callbacks in
                pkgctl_task_start(resolver, method, request.url, headers, fields.count, body, body.count, callbacks, user)
            }
        }
        fuzzCheck(task.handle != nil, "pkgctl_task_start returned NULL for valid arguments")
        live.append(task)
        all.append(task)
    }

    /// `pkgctl_task_stop` of a live task chosen by `byte`: on this thread, from inside its next
    /// body callback, or from another thread while this one dispatches.
    func stop(_ byte: UInt8, mode: UInt8) {
        guard !live.isEmpty else { return }
        let task = live.remove(at: Int(byte) % live.count)
        guard let handle = task.handle else { return }
        switch mode % 3 {
        case 0:
            task.handle = nil
            pkgctl_task_stop(handle)
            task.stopReturned.store(true, ordering: .sequentiallyConsistent)
        case 1:
            task.stopInNextData = true
            live.append(task)  // still the host's until that callback stops it
        default:
            task.handle = nil
            stopFromAnotherThread(handle, task, dispatchingFor: Int(byte % 8))
        }
    }

    /// `pkgctl_task_consumed` on a live task: some of what it was delivered, or (a host's
    /// bug the resolver must survive) far more, up to SIZE_MAX.
    func consume(_ byte: UInt8, amount: UInt8) {
        guard !live.isEmpty else { return }
        let task = live[Int(byte) % live.count]
        guard let handle = task.handle else { return }
        let count: Int = switch amount {
        case 255: -1  // SIZE_MAX as it arrives in Swift's Int
        case 254: Int.min  // 2^63
        default: min(task.unconsumed, (Int(amount) + 1) * 4096)
        }
        pkgctl_task_consumed(handle, count)
        task.noteConsumed(count < 0 ? Int.max : count)
    }

    /// Waits up to `milliseconds` for the descriptor, then dispatches what waits.
    func dispatch(waitingUpTo milliseconds: Int32) {
        var ready = pollfd(fd: pkgctl_resolver_fd(resolver), events: Int16(POLLIN), revents: 0)
        _ = poll(&ready, 1, milliseconds)
        _ = pkgctl_resolver_dispatch(resolver)
        live.removeAll { $0.handle == nil }
    }

    /// Lets every live task run to its end (consuming all it is given), checks that each ended
    /// within 5 seconds and that the counters add up to what the callbacks saw; then stops the
    /// live tasks, or leaves them for destroy when `abandon`, and destroys the resolver.
    func finish(abandon: Bool) {
        for _ in 0..<500 where live.contains(where: { !$0.ended }) {
            for task in live where task.unconsumed > 0 && task.handle != nil {
                let count = task.unconsumed
                pkgctl_task_consumed(task.handle, count)
                task.noteConsumed(count)
            }
            dispatch(waitingUpTo: 10)
        }
        if let stuck = live.first(where: { !$0.ended }) {
            fuzzCheck(false, "a task neither ended nor was stopped 5 s after its host consumed all it got "
                      + "(status \(stuck.status), \(stuck.bodyBytes) body bytes)")
        }
        for task in all where task.ended {
            if task.plannedSource == Int32(PKGCTL_SOURCE_OFFLINE.rawValue) {
                fuzzCheck(task.result == Int32(PKGCTL_ERR_OFFLINE.rawValue), "planned offline, ended with \(task.result ?? 0)")
            } else if task.plannedSource == Int32(PKGCTL_SOURCE_REFUSED.rawValue) {
                fuzzCheck(task.result == Int32(PKGCTL_ERR_INVALID.rawValue), "planned refused, ended with \(task.result ?? 0)")
            }
        }
        checkCounters()
        if !abandon {
            for task in live {
                if let handle = task.handle { pkgctl_task_stop(handle) }
                task.handle = nil
            }
        }
        pkgctl_resolver_destroy(resolver)
        for task in all { task.resolverDestroyed = true }
    }

    /// `pkgctl_resolver_plan` of a request about to start, into a struct with guard bytes after
    /// it: PKGCTL_OK, a known source and class, nothing written past `struct_size`. Returns the source.
    private func plan(_ method: String, _ url: String, _ fields: [(String, String)]) -> Int32 {
        let size = MemoryLayout<pkgctl_request_plan>.size, guardBytes = 16
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size + guardBytes, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xAB, count: size + guardBytes)
        buffer.storeBytes(of: UInt32(size), as: UInt32.self)
        let result = withCStrings(fields) { headers in
            pkgctl_resolver_plan(resolver, method, url, headers, fields.count,
                                 buffer.assumingMemoryBound(to: pkgctl_request_plan.self))
        }
        let plan = buffer.load(as: pkgctl_request_plan.self)
        fuzzCheck(result == Int32(PKGCTL_OK.rawValue), "pkgctl_resolver_plan returned \(result) for valid arguments")
        fuzzCheck((1...5).contains(plan.source) && (1...5).contains(plan.resource_class), "plan \(plan)")
        fuzzCheck((size..<size + guardBytes).allSatisfy { buffer.load(fromByteOffset: $0, as: UInt8.self) == 0xAB },
                  "pkgctl_resolver_plan wrote past struct_size")
        return plan.source
    }

    /// The counters equal what the host saw: tasks started, ended well or not, stopped before
    /// their end, body bytes and callbacks; ABI 0's call and 0.1's sized one agree.
    private func checkCounters() {
        var counters = pkgctl_resolver_counters()
        pkgctl_resolver_get_counters(resolver, &counters)
        var sized = pkgctl_counters()
        sized.struct_size = UInt32(MemoryLayout<pkgctl_counters>.size)
        let written = pkgctl_resolver_counters_get(resolver, &sized)
        fuzzCheck(written == MemoryLayout<pkgctl_counters>.size && sized.tasks_started == counters.tasks_started
                  && sized.tasks_succeeded == counters.tasks_succeeded && sized.tasks_failed == counters.tasks_failed
                  && sized.tasks_stopped == counters.tasks_stopped && sized.body_bytes == counters.body_bytes
                  && sized.callbacks == counters.callbacks, "pkgctl_resolver_counters_get \(sized) (\(written) bytes), "
                  + "pkgctl_resolver_get_counters \(counters)")
        let stopped = all.filter { $0.stopReturned.load(ordering: .sequentiallyConsistent) && !$0.ended }.count
        let seen = (started: all.count, succeeded: all.filter { $0.result == 0 }.count,
                    failed: all.filter { ($0.result ?? 0) != 0 }.count, stopped: stopped,
                    body: all.reduce(0) { $0 + $1.bodyBytes }, callbacks: all.reduce(0) { $0 + $1.callbacks })
        fuzzCheck(counters.tasks_started == seen.started && counters.tasks_succeeded == seen.succeeded
                  && counters.tasks_failed == seen.failed && counters.tasks_stopped == seen.stopped
                  && counters.body_bytes == seen.body && counters.callbacks == seen.callbacks,
                  "counters \(counters) but the host saw \(seen)")
    }

    private func stopFromAnotherThread(_ handle: OpaquePointer, _ task: ObservedTask, dispatchingFor rounds: Int) {
        let request = Unmanaged.passRetained(CrossThreadStop(handle: handle, task: task))
        var thread = pthread_t()
        let made = pthread_create(&thread, nil, { raw in
            let request = Unmanaged<CrossThreadStop>.fromOpaque(raw!).takeRetainedValue()
            pkgctl_task_stop(request.handle)
            request.task.stopReturned.store(true, ordering: .sequentiallyConsistent)
            return nil
        }, request.toOpaque())
        guard made == 0 else { fatalError("pthread_create: \(made)") }
        for _ in 0..<rounds { dispatch(waitingUpTo: 1) }
        pthread_join(thread, nil)
    }
}

/// Calls `body` with `fields` as a C array of `pkgctl_header` whose strings live for the call.
private func withCStrings<R>(_ fields: [(String, String)], _ body: (UnsafePointer<pkgctl_header>?) -> R) -> R {
    let strings = fields.map { (strdup($0.0), strdup($0.1)) }
    defer { for (name, value) in strings { free(name); free(value) } }
    let headers = strings.map { pkgctl_header(name: $0.0, value: $0.1) }
    return headers.withUnsafeBufferPointer { body($0.baseAddress) }
}
