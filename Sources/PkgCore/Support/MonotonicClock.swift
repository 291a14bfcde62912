import Glibc

/// A monotonic clock in nanoseconds (coarse: a few ms resolution, very cheap).
func coarseMonotonicNanoseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
    return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
}
