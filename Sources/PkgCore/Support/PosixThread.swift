import CSystemShims
import Glibc

/// The one place PkgCore starts threads of its own (for blocking loops and work
/// kept off Swift's cooperative pool), as Foundation's Thread did, without Foundation.
final class PosixThread {
    private let name: String?
    private let body: @Sendable () -> Void

    private init(name: String?, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Starts `body` on a new thread, named `name` when given (its first 15 bytes show
    /// in `ps` and `top`); nil when the system cannot start one. The caller joins or
    /// detaches the thread.
    static func start(name: String? = nil, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let argument = Unmanaged.passRetained(PosixThread(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            let started = Unmanaged<PosixThread>.fromOpaque(argument!).takeRetainedValue()
            if let name = started.name { pkg_name_this_thread(name) }
            started.body()
            return nil
        }, argument)
        guard created == 0 else {
            Unmanaged<PosixThread>.fromOpaque(argument).release()
            return nil
        }
        return thread
    }

    /// Starts `body` on a new named thread nobody joins; traps when none can be started.
    static func detach(name: String, _ body: @escaping @Sendable () -> Void) {
        guard let thread = start(name: name, body) else { preconditionFailure("cannot start thread \(name)") }
        pthread_detach(thread)
    }
}
