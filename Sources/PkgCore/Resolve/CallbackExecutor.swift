import Dispatch

/// Where a host wants its ``ResourceTask`` callbacks to run: its main thread, a
/// GLib main loop, an event loop. ``execute(_:)`` must run closures one at a
/// time, in the order they were submitted (a serial queue, not a concurrent one).
///
/// The resolver checks whether the task was stopped inside the closure, on the
/// executor, right before it calls the task; so a host that calls
/// ``Resolver/stop(_:)`` on that same thread never hears from the task again,
/// with no check of its own. A `DispatchQueue` is one:
///
/// ```swift
/// resolver.start(task, delivery: .on(DispatchQueue.main))
/// ```
public protocol CallbackExecutor: Sendable {
    /// Runs `body` later, on the host's thread, after every closure submitted before it.
    func execute(_ body: @escaping @Sendable () -> Void)
}

extension DispatchQueue: CallbackExecutor {
    /// Runs `body` asynchronously on this queue (use a serial queue).
    public func execute(_ body: @escaping @Sendable () -> Void) {
        async(execute: body)
    }
}
