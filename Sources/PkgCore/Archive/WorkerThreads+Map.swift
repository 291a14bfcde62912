import Glibc

extension WorkerThreads {
    /// Threads to run independent work on: the processors online, at least 1.
    package static var available: Int {
        max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    }

    /// `transform(0)`, …, `transform(count - 1)` on up to `workers` threads, each taking the
    /// next index as it finishes one; returns the results in index order, so the caller's
    /// output does not depend on how many threads ran or which finished first.
    ///
    /// When a call throws, indices not yet taken are skipped and the error of the lowest
    /// failed index is thrown: every lower index was taken before it, so it is the error a
    /// loop over the indices in order would have thrown.
    ///
    /// ```swift
    /// let digests = try WorkerThreads.map(files.count, workers: 2) { try hash(files[$0]) }
    /// ```
    package static func map<Value: Sendable>(_ count: Int, workers: Int = available,
                                            _ transform: @escaping @Sendable (Int) throws -> Value) throws -> [Value] {
        let run = OrderedResults<Value>(count: count)
        WorkerThreads.run(count: max(1, min(workers, count))) { _ in
            while let index = run.next() {
                run.store(Result { try transform(index) }, at: index)
            }
        }
        return try run.values()
    }

    /// `first()` and `second()` at once on two threads, or one after the other when `workers`
    /// is 1 (then `second` does not run once `first` has thrown); the error of `first` is
    /// thrown before that of `second`.
    package static func both<First: Sendable, Second: Sendable>(
        workers: Int = available, _ first: @escaping @Sendable () throws -> First,
        _ second: @escaping @Sendable () throws -> Second
    ) throws -> (First, Second) {
        guard workers > 1 else { return (try first(), try second()) }
        let outcomes = PosixMutex<(Result<First, any Error>?, Result<Second, any Error>?)>((nil, nil))
        run(count: 2) { lane in
            if lane == 0 {
                let outcome = Result { try first() }
                outcomes.withLock { $0.0 = outcome }
            } else {
                let outcome = Result { try second() }
                outcomes.withLock { $0.1 = outcome }
            }
        }
        let (firstOutcome, secondOutcome) = outcomes.withLock { $0 }
        // Lane 0 runs on this thread, so `first` always ran; a thread that could not be started
        // left `second` to this one.
        let firstValue = try firstOutcome!.get()
        return (firstValue, try secondOutcome?.get() ?? second())
    }
}
