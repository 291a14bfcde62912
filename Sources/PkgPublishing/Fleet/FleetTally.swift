import CSystemShims
import PkgCore

/// What the outcome reports in an origin's access logs add up to, per channel and package
/// release: fed one log line at a time, so a log of any size is read in memory bounded by the
/// number of releases and distinct devices, not by its length.
///
/// A line is a report when it holds `/report/v1?` (in the request target of nginx's combined
/// format, and of any `log_format` that keeps `$request` or `$request_uri`); its query is read
/// as an ``OutcomeReport``, and the path before `/report/v1` names its channel
/// (``FleetChannel``: `/prod/report/v1` is channel `prod`), because a device reports next to the
/// manifest it polls. With ``channel`` set, reports to other channels are skipped. A report line that does not read, or one longer than ``lineLimit``,
/// is counted as unreadable; other lines (the site's own traffic) are skipped. Logs that keep
/// the query apart from the line (CloudFront, Cloudflare Logpush) are read by ``ReportLogReader``.
///
/// ```swift
/// var tally = FleetTally()
/// for line in log { tally.add(line: line) }
/// for release in tally.releases { print(release.package, release.release, release.failureRate) }
/// ```
public struct FleetTally: Sendable {
    /// One release's reports.
    public struct Release: Sendable, Hashable {
        /// The channel its reports came to.
        public let channel: FleetChannel
        /// The package.
        public let package: String
        /// Its version.
        public let release: String
        /// Distinct devices that reported about it.
        public fileprivate(set) var devices: Set<String> = []
        /// Distinct devices per outcome.
        public fileprivate(set) var outcomes: [OutcomeReport.Outcome: Set<String>] = [:]
        /// Rolled-back devices per cause (`exit`, `timeout`, `signal`, `stopped`, `start`).
        public fileprivate(set) var rollbackCauses: [String: Set<String>] = [:]
        /// Devices whose launches reverted it, per ``LaunchProblem/Reason`` (`missingFile`, `noPage`, `host`).
        public fileprivate(set) var revertReasons: [String: Set<String>] = [:]
        /// Devices that installed it from the whole zip although a delta or objects were offered,
        /// per ``ZipFallback`` reason.
        public fileprivate(set) var zipFallbacks: [String: Set<String>] = [:]
        /// Failed devices per error code.
        public fileprivate(set) var failureCodes: [String: Set<String>] = [:]
        /// Per device that reported serving it: the highest totals it reported (they only grow).
        public fileprivate(set) var servingSignals: [String: ServingSignals] = [:]

        fileprivate init(channel: FleetChannel, package: String, release: String) {
            self.channel = channel
            self.package = package
            self.release = release
        }

        /// Bytes fetched for it, per report of a device's install or failure that says (`device \0 outcome`).
        private var fetched: [String: UInt64] = [:]
        /// Per device that installed it (first install, upgrade or downgrade): its last install.
        private var installedAt: [String: ReportStamp] = [:]
        /// Per device that rolled it back or failed to install it: its last such report.
        private var failedAt: [String: ReportStamp] = [:]

        fileprivate mutating func record(_ report: OutcomeReport, at time: ReportStamp) {
            devices.insert(report.device)
            outcomes[report.outcome, default: []].insert(report.device)
            if let bytes = report.bytes { fetched[report.device + "\u{0}" + report.outcome.rawValue] = bytes }
            switch report.outcome {
            case .installed, .upgraded, .downgraded:
                installedAt[report.device] = max(installedAt[report.device] ?? time, time)
                if let fallback = report.zipFallback { zipFallbacks[fallback.rawValue, default: []].insert(report.device) }
            case .rolledBack:
                rollbackCauses[report.cause ?? "unknown", default: []].insert(report.device)
                failedAt[report.device] = max(failedAt[report.device] ?? time, time)
            case .failed:
                failureCodes[report.errorCode ?? "unknown", default: []].insert(report.device)
                failedAt[report.device] = max(failedAt[report.device] ?? time, time)
            case .serving:
                var signals = servingSignals[report.device] ?? ServingSignals()
                signals.notFound = max(signals.notFound, report.notFound ?? 0)
                signals.originFallbacks = max(signals.originFallbacks, report.originFallbacks ?? 0)
                servingSignals[report.device] = signals
            case .reverted:
                // Launches proved it bad where it runs: a failure as a rollback is, for `fleet watch` too.
                revertReasons[report.cause ?? "unknown", default: []].insert(report.device)
                failedAt[report.device] = max(failedAt[report.device] ?? time, time)
            case .held, .revoked, .staged, .pending, .incompatible, .confirmed:
                break
            }
        }

        /// Devices whose reports say it was installed (first install, upgrade or downgrade).
        public var installs: Int { installedAt.count }

        /// The bytes devices fetched for it, summed over the reports that say (a repeated report
        /// counted once); nil when none does (reports from a pkgctl without the `b` field).
        public var bytesFetched: UInt64? { fetched.isEmpty ? nil : fetched.values.reduce(0, &+) }

        /// Reports of an install or a failure that said how many bytes were fetched.
        public var reportsWithBytes: Int { fetched.count }

        /// Devices whose launches confirmed it (``OutcomeReport/Outcome/confirmed``), apart from those
        /// that merely installed it.
        public var confirmedDevices: Int { outcomes[.confirmed]?.count ?? 0 }

        /// Devices that tried it: installed it, rolled it back or failed to install it. Devices
        /// that only report it staged, held or revoked did not run it, and do not count.
        public var triedDevices: Int {
            Set(installedAt.keys).union(failedAt.keys).count
        }

        /// Devices whose last word on it is a rollback or a failed install: a failed download
        /// retried with success is no failure of the release, a rollback after an install is.
        public var failedDevices: Int {
            failedAt.count { device, failed in installedAt[device].map { $0 <= failed } ?? true }
        }

        /// Devices that rolled it back or failed to install it, then installed it on a later run:
        /// not counted in ``failedDevices``.
        public var failuresCancelled: Int { failedAt.count - failedDevices }

        /// Devices that ran it: installed it, or reported serving it.
        public var servingDevices: Int {
            Set(installedAt.keys).union(outcomes[.serving] ?? []).count
        }

        /// The share of the devices that tried it that failed it, 0 to 1 (0 with none).
        public var failureRate: Double { triedDevices == 0 ? 0 : Double(failedDevices) / Double(triedDevices) }

        /// The 95 % Wilson score interval of ``failureRate``: honest with few devices and near 0 or 1.
        public var failureRateInterval: ClosedRange<Double> {
            Self.wilsonInterval(failureRate, of: triedDevices)
        }

        /// Devices whose resolvers got at least one 404 (or 410) from the origin under its routes.
        public var notFoundDevices: Int { servingSignals.values.count(where: { $0.notFound > 0 }) }

        /// The origin's 404s under its routes, summed over the devices.
        public var notFoundTotal: Int { servingSignals.values.reduce(0) { ServingSignals.capped($0, $1.notFound) } }

        /// Origin fallbacks under its routes, summed over the devices.
        public var originFallbackTotal: Int {
            servingSignals.values.reduce(0) { ServingSignals.capped($0, $1.originFallbacks) }
        }

        /// The share of the devices that ran it whose app met a 404 inside it, 0 to 1 (0 with none).
        public var notFoundRate: Double {
            servingDevices == 0 ? 0 : min(1, Double(notFoundDevices) / Double(servingDevices))
        }

        /// The 95 % Wilson score interval of ``notFoundRate``.
        public var notFoundRateInterval: ClosedRange<Double> {
            Self.wilsonInterval(notFoundRate, of: servingDevices)
        }

        /// The 95 % Wilson score interval of the share `p` of `count` devices.
        static func wilsonInterval(_ p: Double, of count: Int) -> ClosedRange<Double> {
            let n = Double(count)
            guard n > 0 else { return 0...1 }
            let z = 1.959964
            let centre = (p + z * z / (2 * n)) / (1 + z * z / n)
            let margin = z * ((p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()) / (1 + z * z / n)
            // It always holds p; rounding can put an end a hair past it (p = 1: 0.9999999999999999).
            return min(p, max(0, centre - margin))...max(p, min(1, centre + margin))
        }
    }

    /// Longest line read; a longer one is unreadable.
    public static let lineLimit = 16 * 1024

    private var byRelease: [String: Release] = [:]
    /// Report lines that did not read.
    public private(set) var unreadable = 0
    /// Reports read (of ``channel`` when set).
    public private(set) var reports = 0
    /// Only reports to this channel count; nil: every channel, each apart.
    public var channel: FleetChannel?
    /// Reports skipped because they came to another channel than ``channel``.
    public private(set) var otherChannels: Set<FleetChannel> = []
    /// When set, the reports go to it too, with their times: which release each device ran over time.
    public var timeline: FleetTimeline?

    /// An empty tally.
    public init() {}

    /// The releases reported about, by channel, package, then version.
    public var releases: [Release] {
        byRelease.values.sorted {
            ($0.channel, $0.package, PackageVersion($0.release)) < ($1.channel, $1.package, PackageVersion($1.release))
        }
    }

    /// The channels reports came to, in order.
    public var channels: [FleetChannel] { Set(byRelease.values.map(\.channel)).sorted() }

    /// The release `release` of `package` in `channel` (nil: ``channel``, or the only channel
    /// reports came to), if any report named it.
    public func release(_ package: String, _ release: String, channel: FleetChannel? = nil) -> Release? {
        guard let channel = channel ?? self.channel ?? (channels.count == 1 ? channels[0] : nil) else { return nil }
        return byRelease[Self.key(channel, package, release)]
    }

    private static func key(_ channel: FleetChannel, _ package: String, _ release: String) -> String {
        channel.name + "\u{0}" + package + "\u{0}" + release
    }

    /// Reads one log line (without its newline). A line is found to be a report by one
    /// `memmem(3)` for the marker, so the site's own traffic costs little more than the read.
    public mutating func add(line: UnsafeBufferPointer<UInt8>) {
        guard let base = line.baseAddress, line.count >= Self.marker.utf8CodeUnitCount,
              let found = pkg_memmem(base, UInt(min(line.count, Self.lineLimit + 1)), Self.marker.utf8Start,
                                     UInt(Self.marker.utf8CodeUnitCount)) else { return }
        guard line.count <= Self.lineLimit else {
            unreadable += 1
            return
        }
        let marker = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        let start = marker + Self.marker.utf8CodeUnitCount
        var end = start
        while end < line.count, !Self.isTargetEnd(line[end]) { end += 1 }
        var pathStart = marker
        while pathStart > 0, !Self.isTargetEnd(line[pathStart - 1]) { pathStart -= 1 }
        let channel = FleetChannel(path: UnsafeBufferPointer(rebasing: line[pathStart..<marker]))
        add(query: UnsafeBufferPointer(rebasing: line[start..<end]), channel: channel, time: LogTimestamp.common(line))
    }

    private static func isTargetEnd(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\t")
    }

    /// Reads the query of one report request (what follows `/report/v1?`, as the device sent
    /// it) to `channel`, for logs that keep the query apart from the line (``ReportLogReader``);
    /// `time` is when it was made, in seconds since 1970: what orders a device's failure and its
    /// install, and places the report in ``timeline`` (nil: the log's order, and no timeline).
    package mutating func add(query: UnsafeBufferPointer<UInt8>, channel: FleetChannel, time: Double? = nil) {
        if let wanted = self.channel, wanted != channel {
            otherChannels.insert(channel)
            return
        }
        guard let report = OutcomeReport(query: Substring(String(decoding: query, as: UTF8.self))) else {
            unreadable += 1
            return
        }
        reports += 1
        // Changed in place: a copy of the release out of the dictionary and back would copy
        // its device sets on every report (seen: 136 µs a report at 16,000 devices).
        byRelease[Self.key(channel, report.package, report.release),
                  default: Release(channel: channel, package: report.package, release: report.release)]
            .record(report, at: ReportStamp(time: time, sequence: reports))
        if let time { timeline?.record(report, channel: channel, at: time) }
    }

    /// Counts a report request whose query cannot be had (its line is longer than ``lineLimit``).
    package mutating func addUnreadable() {
        unreadable += 1
    }

    /// ``add(line:)`` for bytes in any collection.
    public mutating func add(line: some Collection<UInt8>) {
        let bytes = Array(line.prefix(Self.lineLimit + 1))
        bytes.withUnsafeBufferPointer { add(line: $0) }
    }

    private static let marker: StaticString = "/report/v1?"
}
