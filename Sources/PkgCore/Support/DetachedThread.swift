import CSystemShims
import Glibc

/// A named, detached POSIX thread for a loop that blocks (as Foundation's Thread
/// was used, without Foundation).
final class DetachedThread {
    private let name: String
    private let body: @Sendable () -> Void

    private init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Runs `body` on a new thread named `name` (its first 15 bytes show in `ps` and `top`).
    static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let argument = Unmanaged.passRetained(DetachedThread(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            let started = Unmanaged<DetachedThread>.fromOpaque(argument!).takeRetainedValue()
            pkg_name_this_thread(started.name)
            started.body()
            return nil
        }, argument)
        precondition(created == 0, "pthread_create failed: \(created)")
        pthread_detach(thread)
    }
}
