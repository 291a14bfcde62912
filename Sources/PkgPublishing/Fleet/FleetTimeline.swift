import PkgCore

/// Which release of each package the devices ran over time, from the times of their outcome
/// reports: fed with ``FleetTally`` (set its ``FleetTally/timeline``), read as an adoption
/// curve per release (``adoption(maxBuckets:)``).
///
/// It keeps, per device and release, only the first and last time the device said it ran the
/// release (installed, upgraded, downgraded to or serving it) and the last time it said it left
/// it (rolled it back, failed it, or had it revoked): memory bounded by devices and releases,
/// whatever the log's length, and the same whatever order the log files come in.
///
/// ```swift
/// var tally = FleetTally()
/// tally.timeline = FleetTimeline()
/// for line in log { reader.read(line: line, into: &tally) }
/// let curve = tally.timeline!.adoption()
/// ```
public struct FleetTimeline: Sendable {
    /// A device's times on one release.
    struct Stay: Sendable {
        var firstOn: Double?
        var lastOn: Double?
        var lastOff: Double?
    }

    /// Per `package \0 device`: per release, the device's times on it.
    private var stays: [String: [String: Stay]] = [:]
    /// The earliest report's time, in seconds since 1970; nil before one.
    public private(set) var first: Double?
    /// The latest report's time.
    public private(set) var last: Double?

    /// An empty timeline.
    public init() {}

    /// Notes `report`, made at `time` (seconds since 1970).
    mutating func record(_ report: OutcomeReport, at time: Double) {
        let on: Bool
        switch report.outcome {
        case .installed, .upgraded, .downgraded, .serving: on = true
        case .rolledBack, .failed, .revoked: on = false
        case .held, .staged, .pending, .incompatible: return
        }
        first = min(first ?? time, time)
        last = max(last ?? time, time)
        let key = report.package + "\u{0}" + report.device
        var stay = stays[key]?[report.release] ?? Stay()
        if on {
            stay.firstOn = min(stay.firstOn ?? time, time)
            stay.lastOn = max(stay.lastOn ?? time, time)
        } else {
            stay.lastOff = max(stay.lastOff ?? time, time)
        }
        stays[key, default: [:]][report.release] = stay
    }

    /// Devices on each release over time, in at most `maxBuckets` buckets of a round width
    /// (1 minute to 1 week): a device counts in a bucket when it ran the release at its end.
    /// A device runs the release it last said it ran, until it says it left it (it is then back on
    /// the one before).
    public func adoption(maxBuckets: Int = 200) -> FleetAdoption {
        guard let first, let last else { return FleetAdoption(start: 0, width: 3600, buckets: 0, series: []) }
        let width = Self.widths.first { ((last - first) / $0).rounded(.down) + 2 <= Double(maxBuckets) }
            ?? ((last - first) / Double(max(1, maxBuckets - 2))).rounded(.up)
        let start = (first / width).rounded(.down) * width
        let buckets = Int(((last - start) / width).rounded(.down)) + 1
        func bucket(_ time: Double) -> Int { min(buckets - 1, Int(((time - start) / width).rounded(.down))) }

        var changes: [String: [Int]] = [:]   // `package \0 release`: devices gained (lost) per bucket
        for (key, releases) in stays {
            let package = String(key.prefix { $0 != "\u{0}" })
            var events: [(time: Double, release: String, on: Bool)] = []
            for (release, stay) in releases {
                for time in Set([stay.firstOn, stay.lastOn].compactMap { $0 }) { events.append((time, release, true)) }
                if let off = stay.lastOff, off >= (stay.firstOn ?? -.infinity) { events.append((off, release, false)) }
            }
            events.sort { ($0.time, $0.on ? 0 : 1, $0.release) < ($1.time, $1.on ? 0 : 1, $1.release) }
            var current: String?, previous: String?
            for event in events {
                let next: String?
                if event.on {
                    guard event.release != current else { continue }
                    next = event.release
                    previous = current
                } else {
                    guard event.release == current else { continue }
                    next = previous
                    previous = nil
                }
                let index = bucket(event.time)
                if let current { changes[package + "\u{0}" + current, default: Array(repeating: 0, count: buckets)][index] -= 1 }
                if let next { changes[package + "\u{0}" + next, default: Array(repeating: 0, count: buckets)][index] += 1 }
                current = next
            }
        }
        let series = changes.map { key, change in
            var running = 0
            return FleetAdoption.Series(package: String(key.prefix { $0 != "\u{0}" }),
                                        release: String(key.drop { $0 != "\u{0}" }.dropFirst()),
                                        devices: change.map { running += $0; return running })
        }
        return FleetAdoption(start: start, width: width, buckets: buckets,
                             series: series.sorted { ($0.package, PackageVersion($0.release)) < ($1.package, PackageVersion($1.release)) })
    }

    /// Bucket widths tried, in seconds: 1, 5, 15 and 30 minutes, 1, 2, 3, 6 and 12 hours, 1 day, 1 week.
    private static let widths: [Double] = [60, 300, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 604_800]
}
