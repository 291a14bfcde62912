import Glibc
import Synchronization
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `WorkerThreads.map` and `both`, which pack and `--image-variants` spread their work with:
/// results in index order and the error a loop in order would throw, whatever the threads.
@Suite struct WorkerThreadsTests {
    struct Failure: Error, Equatable {
        var index: Int
    }

    @Test(arguments: [1, 2, 3, 8])
    func mapGivesTheResultsInIndexOrder(workers: Int) throws {
        let threads = PosixMutex<Set<UInt>>([])
        let squares = try WorkerThreads.map(200, workers: workers) { index in
            threads.withLock { _ = $0.insert(pthread_self()) }
            return index * index
        }
        #expect(squares == (0..<200).map { $0 * $0 })
        #expect(threads.withLock { $0.count } <= workers)
        #expect(try WorkerThreads.map(0, workers: workers) { $0 } == [])
    }

    /// Indices 5 and 9 fail; 9 may fail first on another thread, but 5 is the error thrown.
    /// The others take 1 ms each, so running all 98 takes the other threads at least 33 ms,
    /// while 9 throws within the first few: a busy machine must stall the thread holding 9
    /// for that long to make the skip look absent.
    @Test(arguments: [1, 2, 4])
    func mapThrowsTheErrorOfTheLowestFailedIndex(workers: Int) {
        let done = Atomic<Int>(0)
        #expect(throws: Failure(index: 5)) {
            _ = try WorkerThreads.map(100, workers: workers) { index in
                if index == 9 { throw Failure(index: 9) }
                if index == 5 {
                    usleep(20_000)
                    throw Failure(index: 5)
                }
                usleep(1_000)
                done.add(1, ordering: .relaxed)
                return index
            }
        }
        let completed = done.load(ordering: .relaxed)
        #expect(completed < 50, "indices after a failure are skipped")
    }

    @Test func bothRunsAtOnceAndThrowsTheFirstError() throws {
        let (a, b) = try WorkerThreads.both(workers: 2, { "zip" }, { 38 })
        #expect(a == "zip" && b == 38)
        #expect(throws: Failure(index: 0)) {
            _ = try WorkerThreads.both(workers: 2, { () throws -> Int in usleep(20_000); throw Failure(index: 0) },
                                       { () throws -> Int in throw Failure(index: 1) })
        }
    }

    /// With one worker the second does not run once the first has thrown.
    @Test func bothOnOneWorkerStopsAtTheFirstError() {
        let ran = Atomic<Bool>(false)
        #expect(throws: Failure(index: 0)) {
            _ = try WorkerThreads.both(workers: 1, { () throws -> Int in throw Failure(index: 0) },
                                       { ran.store(true, ordering: .relaxed); return 1 })
        }
        let secondRan = ran.load(ordering: .relaxed)
        #expect(!secondRan)
    }
}
