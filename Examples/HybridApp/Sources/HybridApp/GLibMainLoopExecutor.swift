import CWebKitGTK
import PkgCore
import Synchronization

/// Delivers resolver callbacks on the GLib main loop, in submission order: the
/// thread where every WebKit call must happen. Closures queue here and one idle
/// source at a time drains them, so order holds however many arrive between two
/// turns of the loop. (`g_main_context_invoke` would run a closure at once when called on
/// the main thread, inside the resolver's delivery.)
final class GLibMainLoopExecutor: CallbackExecutor {
    private let pending = Mutex<(closures: [@Sendable () -> Void], scheduled: Bool)>(([], false))

    func execute(_ body: @escaping @Sendable () -> Void) {
        let schedule = pending.withLock { state -> Bool in
            state.closures.append(body)
            defer { state.scheduled = true }
            return !state.scheduled
        }
        guard schedule else { return }
        let context = Unmanaged.passRetained(self).toOpaque()
        g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, { context in
            let executor = Unmanaged<GLibMainLoopExecutor>.fromOpaque(context!).takeRetainedValue()
            executor.drain()
            return gboolean(0)  // G_SOURCE_REMOVE
        }, context, nil)
    }

    /// Main thread: runs the closures queued so far; later ones wait for the next idle
    /// turn, after input, timers and drawing (which have higher priorities).
    private func drain() {
        let batch = pending.withLock { state -> [@Sendable () -> Void] in
            defer { state.closures.removeAll(keepingCapacity: true); state.scheduled = false }
            return state.closures
        }
        for body in batch { body() }
    }
}
