import CPkgResolver
import Glibc
import PkgCore

/// A task started through the C ABI: hands the resolver's callbacks, which run on the host's
/// dispatching thread, to the host's C function pointers. A recursive lock is held around each
/// call and taken by ``stop(in:)``, so a stop from another thread waits for a call in progress
/// and none starts after it, while a stop from inside a callback (same thread) goes through.
final class HostTask: ResourceTask, @unchecked Sendable {
    let request: ResourceRequest
    private let callbacks: pkgctl_task_callbacks
    private let user: UnsafeMutableRawPointer?
    private let counters: HostCounters
    private let lock = RecursiveLock()
    /// Guarded by `lock`.
    private var stopped = false
    /// Guarded by `lock`: the end was delivered.
    private var ended = false

    init(request: ResourceRequest, callbacks: pkgctl_task_callbacks, user: UnsafeMutableRawPointer?,
         counters: HostCounters) {
        self.request = request
        self.callbacks = callbacks
        self.user = user
        self.counters = counters
    }

    func didReceive(_ response: ResourceResponse) {
        deliver { callbacks, user in
            // Every name and value NUL-terminated in one buffer: three allocations a head, not two a field.
            var text: [UInt8] = []
            text.reserveCapacity(response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 2 })
            var starts: [(name: Int, value: Int)] = []
            starts.reserveCapacity(response.headers.count)
            for field in response.headers {
                let name = text.count
                text.append(contentsOf: field.name.utf8)
                text.append(0)
                starts.append((name, text.count))
                text.append(contentsOf: field.value.utf8)
                text.append(0)
            }
            text.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { characters in
                    let fields = starts.map { pkgctl_header(name: characters.baseAddress! + $0.name,
                                                            value: characters.baseAddress! + $0.value) }
                    fields.withUnsafeBufferPointer { callbacks.response?(user, Int32(response.status), $0.baseAddress, $0.count) }
                }
            }
        }
    }

    func didReceive(_ data: UnsafeRawBufferPointer) {
        deliver { callbacks, user in
            counters.add(bodyBytes: data.count)
            callbacks.data?(user, data.baseAddress, data.count)
        }
    }

    func didFinish() {
        end(PKGCTL_OK, message: nil)
    }

    func didFail(_ error: PkgError) {
        end(Self.result(of: error), message: error.message)
    }

    /// Delivers the end with `result` (the C ABI's own ends, such as offline misses, too).
    func end(_ result: pkgctl_result, message: String?) {
        deliver(ending: true) { callbacks, user in
            counters.add(ended: result == PKGCTL_OK ? .succeeded : .failed)
            if let message {
                message.withCString { callbacks.end?(user, Int32(result.rawValue), $0) }
            } else {
                callbacks.end?(user, Int32(result.rawValue), nil)
            }
        }
    }

    /// Stops the task in `resolver` unless it ended; after it returns no callback runs.
    func stop(in resolver: Resolver) {
        lock.lock()
        let running = !stopped && !ended
        stopped = true
        lock.unlock()
        guard running else { return }
        counters.add(ended: .stopped)
        resolver.stop(self)
    }

    private func deliver(ending: Bool = false,
                         _ call: (_ callbacks: pkgctl_task_callbacks, _ user: UnsafeMutableRawPointer?) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, !ended else { return }
        if ending { ended = true }
        counters.add(callbacks: 1)
        call(callbacks, user)
    }

    private static func result(of error: PkgError) -> pkgctl_result {
        switch error.code {
        case .invalidArgument: return PKGCTL_ERR_INVALID
        case .transferFailed, .httpStatus, .tooSlow, .deadlineExceeded, .responseTooLarge: return PKGCTL_ERR_TRANSFER
        default: return PKGCTL_ERR_OTHER
        }
    }
}
