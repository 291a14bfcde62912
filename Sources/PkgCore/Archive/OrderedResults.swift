import Synchronization

/// The shared state of one ``WorkerThreads/map(_:workers:_:)``: the next index to take and
/// each index's outcome.
final class OrderedResults<Value: Sendable>: Sendable {
    private let count: Int
    private let nextIndex = Atomic<Int>(0)
    private let failed = Atomic<Bool>(false)
    private let outcomes: PosixMutex<[Result<Value, any Error>?]>

    /// Room for `count` outcomes.
    init(count: Int) {
        self.count = count
        outcomes = PosixMutex(Array(repeating: nil, count: count))
    }

    /// The next index to compute; nil when none is left or one has failed.
    func next() -> Int? {
        guard !failed.load(ordering: .relaxed) else { return nil }
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }

    /// Records the outcome of `index`; a failure stops the taking of further indices.
    func store(_ outcome: Result<Value, any Error>, at index: Int) {
        if case .failure = outcome { failed.store(true, ordering: .relaxed) }
        outcomes.withLock { $0[index] = outcome }
    }

    /// Every value in index order, or the error of the lowest failed index.
    func values() throws -> [Value] {
        try outcomes.withLock { outcomes in
            var values: [Value] = []
            values.reserveCapacity(count)
            for outcome in outcomes {
                // Indices are taken in order, so one skipped comes after one that failed.
                guard let outcome else { break }
                values.append(try outcome.get())
            }
            return values
        }
    }
}
