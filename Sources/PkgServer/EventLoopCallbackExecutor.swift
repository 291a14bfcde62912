import NIOCore
import PkgCore

/// Runs a resolver task's callbacks on a channel's event loop, so its stopped
/// check and its writes happen on the thread that owns the connection.
struct EventLoopCallbackExecutor: CallbackExecutor {
    let eventLoop: any EventLoop

    func execute(_ body: @escaping @Sendable () -> Void) {
        eventLoop.execute(body)
    }
}
