import Glibc

/// A value behind a pthread mutex, with the API of `Synchronization.Mutex`.
///
/// PkgCore, PkgServer and pkgctl use it instead of `Mutex` wherever more than one
/// thread takes the lock. `Mutex` on Linux hands a contended lock over through
/// `FUTEX_LOCK_PI` inside the uninstrumented standard library, so ThreadSanitizer
/// does not see that hand-over and reports the guarded value as raced; it models a
/// pthread mutex.
///
/// ```swift
/// let counts = PosixMutex<[String: Int]>([:])
/// counts.withLock { $0["hits", default: 0] += 1 }
/// ```
package final class PosixMutex<Value: ~Copyable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let value = UnsafeMutablePointer<Value>.allocate(capacity: 1)

    /// A mutex guarding `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init")
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` on the value while holding the lock.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
