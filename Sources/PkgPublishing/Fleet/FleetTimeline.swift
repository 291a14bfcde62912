import PkgCore

/// Which release of each package the devices of each channel ran over time, from the times
/// of their outcome reports: fed with ``FleetTally`` (set its ``FleetTally/timeline``), read as
/// devices on each release per time bucket (``adoption(maxBuckets:)``).
///
/// A device counts once, on the release it last reported moving to. A report cannot name the
/// device across releases (its ``DevicePseudonym`` changes with the release, by design), so the
/// moves are read from what each report says it left:
/// - an install, upgrade or downgrade to `r=` from `f=` moves one device from `f` to `r`
///   (a repeated report of the same move by the same device moves nothing);
/// - a rollback of `r=` to `f=` by a device that had reported installing `r` moves it back;
///   one that never ran `r` (its health check failed in the same run) stays where it was;
/// - failures, holds, stages and serving reports move nothing.
///
/// Devices on a release before the logs begin are known only when they leave it: a release
/// starts with as many devices as the most that left it before arriving (never fewer than 0).
/// Memory is bounded by devices and releases, whatever the log's length, and the result is the
/// same whatever order the log files come in.
///
/// ```swift
/// var tally = FleetTally()
/// tally.timeline = FleetTimeline()
/// for line in log { reader.read(line: line, into: &tally) }
/// let curve = tally.timeline!.adoption()
/// ```
public struct FleetTimeline: Sendable {
    /// The earliest report that a device moved to a release, or rolled it back.
    struct Move: Sendable {
        var time: Double
        var from: String?
    }

    /// One channel's package: per move (`release \0 device \0 from`), the device's arrival on the
    /// release and its rollback of it.
    struct Group: Sendable {
        var arrivals: [String: Move] = [:]
        var rollbacks: [String: Move] = [:]
    }

    /// Per `channel \0 package`.
    private var groups: [String: Group] = [:]
    /// The earliest report's time, in seconds since 1970; nil before one.
    public private(set) var first: Double?
    /// The latest report's time.
    public private(set) var last: Double?

    /// An empty timeline.
    public init() {}

    /// Notes `report`, made to `channel` at `time` (seconds since 1970).
    mutating func record(_ report: OutcomeReport, channel: FleetChannel, at time: Double) {
        first = min(first ?? time, time)
        last = max(last ?? time, time)
        let from = report.from == report.release ? nil : report.from
        let key = channel.name + "\u{0}" + report.package
        // A device's pseudonym is the same each time it comes to a release, so the move is told
        // apart by where it came from too: back on 1.1.0 from a revoked 1.2.0 is a move of its own.
        let device = report.release + "\u{0}" + report.device + "\u{0}" + (from ?? "")
        let move = Move(time: time, from: from)
        switch report.outcome {
        case .installed, .upgraded, .downgraded:
            if let known = groups[key]?.arrivals[device], known.time <= time { return }
            groups[key, default: Group()].arrivals[device] = move
        case .rolledBack, .reverted:
            if let known = groups[key]?.rollbacks[device], known.time <= time { return }
            groups[key, default: Group()].rollbacks[device] = move
        case .serving, .failed, .revoked, .held, .staged, .pending, .incompatible, .confirmed:
            return
        }
    }

    /// Devices on each release over time, in at most `maxBuckets` buckets of a round width
    /// (1 minute to 1 week): a device counts in a bucket when it was on the release at its end.
    public func adoption(maxBuckets: Int = 200) -> FleetAdoption {
        guard let first, let last else { return FleetAdoption(start: 0, width: 3600, buckets: 0, series: []) }
        let width = Self.widths.first { ((last - first) / $0).rounded(.down) + 2 <= Double(maxBuckets) }
            ?? ((last - first) / Double(max(1, maxBuckets - 2))).rounded(.up)
        let start = (first / width).rounded(.down) * width
        let buckets = Int(((last - start) / width).rounded(.down)) + 1
        func bucket(_ time: Double) -> Int { min(buckets - 1, Int(((time - start) / width).rounded(.down))) }

        var series: [FleetAdoption.Series] = []
        for (key, group) in groups {
            let channel = FleetChannel(String(key.prefix { $0 != "\u{0}" }))
            let package = String(key.drop { $0 != "\u{0}" }.dropFirst())
            // Per release: its moves in time order, arrivals before departures at one instant.
            var moves: [String: [(time: Double, change: Int)]] = [:]
            for (device, arrival) in group.arrivals {
                let release = String(device.prefix { $0 != "\u{0}" })
                moves[release, default: []].append((arrival.time, 1))
                if let from = arrival.from { moves[from, default: []].append((arrival.time, -1)) }
                if let rollback = group.rollbacks[device], rollback.time >= arrival.time {
                    moves[release, default: []].append((rollback.time, -1))
                    if let back = rollback.from { moves[back, default: []].append((rollback.time, 1)) }
                }
            }
            for (release, list) in moves {
                let ordered = list.sorted { ($0.time, -$0.change) < ($1.time, -$1.change) }
                var running = 0, lowest = 0
                var change = Array(repeating: 0, count: buckets)
                for move in ordered {
                    running += move.change
                    lowest = min(lowest, running)
                    change[bucket(move.time)] += move.change
                }
                var devices = -lowest
                series.append(FleetAdoption.Series(channel: channel, package: package, release: release,
                                                   devices: change.map { devices += $0; return devices }))
            }
        }
        return FleetAdoption(start: start, width: width, buckets: buckets, series: series.sorted {
            ($0.channel, $0.package, PackageVersion($0.release)) < ($1.channel, $1.package, PackageVersion($1.release))
        })
    }

    /// Bucket widths tried, in seconds: 1, 5, 15 and 30 minutes, 1, 2, 3, 6 and 12 hours, 1 day, 1 week.
    private static let widths: [Double] = [60, 300, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 604_800]
}
