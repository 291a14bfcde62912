import Glibc

/// A point on the monotonic clock by which a run's transfers must be done
/// (`pkgctl update --deadline`): each transfer is given what is left of it as its
/// total time, and a retry that would start after it is not made.
///
/// ```swift
/// var options = TransferOptions()
/// options.deadline = Deadline(after: 3600)   // one hour from now
/// ```
public struct Deadline: Sendable, Hashable {
    /// The budget it was made with, in seconds, for messages.
    public let budget: Double
    private let instant: Int64

    /// A deadline `seconds` from now on the monotonic clock.
    public init(after seconds: Double) {
        budget = seconds
        instant = Self.now() + Int64(min(max(0, seconds) * 1e9, 9e18).rounded(.up))
    }

    /// Whole milliseconds left, at least 0.
    var remainingMilliseconds: Int64 {
        max(0, (instant - Self.now()) / 1_000_000)
    }

    /// The error of a transfer of `url` stopped, or not started, because the deadline passed.
    func exceeded(_ url: String) -> PkgError {
        PkgError(.deadlineExceeded,
                 "GET \(url): stopped at the run's deadline (\(DurationText.format(seconds: budget)) after it began)")
    }

    private static func now() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
