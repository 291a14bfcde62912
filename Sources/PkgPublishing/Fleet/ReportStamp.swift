/// When a report was made, to order one device's reports about a release: its time in the
/// log, then its place among the reports read (the order of a log whose lines carry no time, or
/// of two lines of the same second).
struct ReportStamp: Sendable, Hashable, Comparable {
    /// Seconds since 1970; nil when its line carries none.
    var time: Double?
    /// How many reports were read before it.
    var sequence: Int

    static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.time ?? -.infinity, lhs.sequence) < (rhs.time ?? -.infinity, rhs.sequence)
    }
}
