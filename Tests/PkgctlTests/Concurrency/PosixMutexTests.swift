import Glibc
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `PosixMutex` is the lock ThreadSanitizer can see (`scripts/test --sanitize thread`
/// fails on any report): these runs contend for it from several threads at once.
@Suite struct PosixMutexTests {
    /// Four threads that take the lock 20 000 times each never lose an update (a lock that
    /// did not exclude would lose some, or corrupt the dictionary). "Not reported as races"
    /// is checked only under ThreadSanitizer, which CI runs the suite under
    /// (`scripts/test --sanitize thread` fails on any report); a plain run cannot see it.
    @Test func contendedUpdatesAreNeitherLostNorReportedAsRaces() {
        let counts = PosixMutex<[Int: Int]>([:])
        let threads = (0..<4).compactMap { _ in
            PosixThread.start {
                for step in 0..<20_000 { counts.withLock { $0[step % 64, default: 0] += 1 } }
            }
        }
        #expect(threads.count == 4)
        for thread in threads { pthread_join(thread, nil) }
        #expect(counts.withLock { $0.values.reduce(0, +) } == 80_000)
        #expect(counts.withLock { $0.count } == 64)
    }

    /// A value a mutex guards is released with the mutex.
    @Test func theGuardedValueIsReleasedWithTheMutex() {
        final class Tracked: Sendable {}
        weak var tracked: Tracked?
        do {
            let mutex = PosixMutex(Tracked())
            tracked = mutex.withLock { $0 }
            #expect(tracked != nil)
        }
        #expect(tracked == nil)
    }
}
