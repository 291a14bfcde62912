import CSystemShims
import Glibc
import PkgCore

/// The ``CallbackExecutor`` of the C ABI: callbacks wait in a queue until the host calls
/// `pkgctl_resolver_dispatch()` on its thread; an eventfd is readable while any wait, so the
/// host's main loop (GLib, Qt, epoll) knows when to call it.
final class DispatchQueueForHost: CallbackExecutor {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        var closed = false
    }

    /// The eventfd; closed by ``close()``.
    let descriptor: Int32
    private let state = PosixMutex(State())

    /// A queue with a new eventfd.
    init() throws(PkgError) {
        descriptor = pkg_eventfd()
        guard descriptor >= 0 else { throw PkgError(.fileSystem, "eventfd: \(String(cString: strerror(errno)))") }
    }

    func execute(_ body: @escaping @Sendable () -> Void) {
        let first = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.waiting.append(body)
            return state.waiting.count == 1
        }
        if first {
            var one: UInt64 = 1
            _ = write(descriptor, &one, 8)
        }
    }

    /// Runs what waits now, in order, on the calling thread; returns how many ran. Closures
    /// queued meanwhile wait for the next call (they make the descriptor readable again).
    func dispatch() -> Int {
        let batch = state.withLock { state -> [@Sendable () -> Void] in
            var count: UInt64 = 0
            _ = read(descriptor, &count, 8)  // resets the counter; non-blocking
            defer { state.waiting.removeAll(keepingCapacity: true) }
            return state.waiting
        }
        for body in batch { body() }
        return batch.count
    }

    /// Drops what waits and closes the descriptor; closures queued later are dropped.
    func close() {
        let dropped = state.withLock { state -> [@Sendable () -> Void] in
            state.closed = true
            defer { state.waiting = [] }
            return state.waiting
        }
        withExtendedLifetime(dropped) {}  // released outside the lock
        Glibc.close(descriptor)
    }
}
