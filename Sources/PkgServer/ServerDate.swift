import PkgCore
import Glibc

/// The `Date` header every response carries (RFC 9110 §6.6.1), formatted at
/// most once a second and shared by the event loops.
enum ServerDate {
    private static let cache = PosixMutex<(second: Int64, text: String)>((0, ""))

    /// Now, as an HTTP date.
    static var now: String {
        var clock = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &clock)
        let second = Int64(clock.tv_sec)
        return cache.withLock { cache in
            if cache.second != second { cache = (second, HTTPDate.format(second)) }
            return cache.text
        }
    }
}
