import Glibc

/// Runs blocking work on dedicated threads, off Swift's cooperative pool.
package enum WorkerThreads {
    /// Calls `body(n)` for each `n` in `0..<count`, `body(0)` on the calling
    /// thread and the rest on new threads; returns when all have returned.
    ///
    /// If a thread cannot be started its share is skipped, so `body` must
    /// pull work from a shared source rather than rely on its number.
    package static func run(count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        var threads: [pthread_t] = []
        if count > 1 {
            threads.reserveCapacity(count - 1)
            for number in 1..<count {
                if let thread = PosixThread.start({ body(number) }) { threads.append(thread) }
            }
        }
        body(0)
        for thread in threads {
            pthread_join(thread, nil)
        }
    }
}
