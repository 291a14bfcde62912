import PkgCore

/// The fleet's numbers, computed once for every view: `pkgctl fleet report` prints them as text,
/// encodes them as JSON (`--json`) and draws them (``FleetReportPage``), so the three never differ.
public struct FleetSummary: Sendable, Encodable {
    /// One release of a package in one channel.
    public struct Release: Sendable, Encodable {
        /// The channel (`prod`; empty for the root).
        public var channel: String
        public var package: String
        public var release: String
        /// Devices on it at the end of the logs (``FleetTimeline``); nil when the logs give no times.
        public var devicesNow: Int?
        /// Distinct devices that reported anything about it.
        public var devices: Int
        /// Devices that tried it: installed it, rolled it back or failed to install it.
        public var tried: Int
        public var installs: Int
        /// Distinct devices per outcome.
        public var outcomes: [String: Int]
        /// Rolled-back devices per cause.
        public var rollbacks: [String: Int]
        /// Failed devices per error code.
        public var failures: [String: Int]
        /// Devices whose launches reverted it, per reason (`missingFile`, `noPage`, `host`).
        public var reverts: [String: Int]
        /// Devices that installed it from the zip although a delta or objects were offered, per reason.
        public var zipFallbacks: [String: Int]
        /// Devices that rolled it back or failed it, then installed it: not counted as failed.
        public var failuresCancelled: Int
        public var failureRate: Double
        public var failureRateLow: Double
        public var failureRateHigh: Double
        public var servingDevices: Int
        /// Devices that sent their resolvers' counts (`serving` reports); the 404 figures rest on them.
        public var signalDevices: Int
        public var notFound: Int
        public var notFoundDevices: Int
        public var notFoundRate: Double
        public var notFoundRateLow: Double
        public var notFoundRateHigh: Double
        public var originFallbacks: Int
        /// Bytes the devices' update runs fetched for it, summed over the reports that say; nil when none does.
        public var bytesFetched: UInt64?
        /// Reports that said how many bytes their run fetched.
        public var reportsWithBytes: Int

        /// The outcomes besides installs, rollbacks and failures that devices reported, in one
        /// order (held, revoked, staged, pending, incompatible), with their devices.
        public var otherOutcomes: [(outcome: String, devices: Int)] {
            ["held", "revoked", "staged", "pending", "incompatible"].compactMap { outcome in
                outcomes[outcome].flatMap { $0 > 0 ? (outcome, $0) : nil }
            }
        }
    }

    /// One package in one channel.
    public struct Package: Sendable, Encodable {
        public var channel: String
        public var package: String
        /// The newest release: what the publishing folder names now when given, else the highest reported.
        public var newest: String
        /// Devices on any of its releases at the end of the logs; nil when the logs give no times.
        public var devicesNow: Int?
        /// Devices on an older release that sent no report about ``newest``: outside its rollout
        /// share, offline, or not polled since; nil when the logs give no times.
        public var silentSinceNewest: Int?
    }

    /// Per channel, package and version.
    public var releases: [Release]
    /// Per channel and package.
    public var packages: [Package]
    /// What the publishing folder's manifest names now (empty: no folder given).
    public var published: [PublishedRelease]
    /// Reports read.
    public var reports: Int
    /// Report lines that did not read.
    public var unreadable: Int
    /// The channels whose reports were skipped, as another channel was asked for.
    public var otherChannels: [String]

    /// The summary of `tally`, with devices over time from its ``FleetTally/timeline`` (or
    /// `adoption`, when the caller has it already) and the publishing folder's `published`
    /// releases (which belong to the tally's only channel, or its ``FleetTally/channel``).
    public init(_ tally: FleetTally, adoption: FleetAdoption? = nil, published: [PublishedRelease] = []) {
        let adoption = adoption ?? tally.timeline?.adoption()
        let hasTimes = (adoption?.buckets ?? 0) > 0
        releases = tally.releases.map { release in
            let interval = release.failureRateInterval, found = release.notFoundRateInterval
            return Release(
                channel: release.channel.name, package: release.package, release: release.release,
                devicesNow: hasTimes ? adoption?.series(release.channel, release.package, release.release)?.now ?? 0 : nil,
                devices: release.devices.count, tried: release.triedDevices, installs: release.installs,
                outcomes: Dictionary(uniqueKeysWithValues: release.outcomes.map { ($0.key.rawValue, $0.value.count) }),
                rollbacks: release.rollbackCauses.mapValues(\.count), failures: release.failureCodes.mapValues(\.count),
                reverts: release.revertReasons.mapValues(\.count), zipFallbacks: release.zipFallbacks.mapValues(\.count),
                failuresCancelled: release.failuresCancelled, failureRate: release.failureRate,
                failureRateLow: interval.lowerBound, failureRateHigh: interval.upperBound,
                servingDevices: release.servingDevices, signalDevices: release.servingSignals.count,
                notFound: release.notFoundTotal,
                notFoundDevices: release.notFoundDevices, notFoundRate: release.notFoundRate,
                notFoundRateLow: found.lowerBound, notFoundRateHigh: found.upperBound,
                originFallbacks: release.originFallbackTotal, bytesFetched: release.bytesFetched,
                reportsWithBytes: release.reportsWithBytes)
        }
        let ownChannel = tally.channel ?? (tally.channels.count == 1 ? tally.channels[0] : nil)
        var packages: [Package] = []
        for release in releases where packages.last.map({ $0.channel != release.channel || $0.package != release.package }) ?? true {
            let all = releases.filter { $0.channel == release.channel && $0.package == release.package }
            let named = ownChannel?.name == release.channel ? published.first { $0.package == release.package }?.release : nil
            let newest = named ?? all.map(\.release).max { PackageVersion($0) < PackageVersion($1) } ?? release.release
            var package = Package(channel: release.channel, package: release.package, newest: newest)
            if hasTimes {
                let now = all.reduce(0) { $0 + ($1.devicesNow ?? 0) }
                let onNewest = all.first { $0.release == newest }
                let reportedElsewhere = (onNewest?.devices ?? 0) - (onNewest?.devicesNow ?? 0)
                package.devicesNow = now
                package.silentSinceNewest = max(0, now - (onNewest?.devicesNow ?? 0) - max(0, reportedElsewhere))
            }
            packages.append(package)
        }
        self.packages = packages
        self.published = published
        reports = tally.reports
        unreadable = tally.unreadable
        otherChannels = tally.otherChannels.sorted().map(\.name)
    }

    /// `share` (0 to 1) as a percentage to a tenth: `12.5 %`, `0.0 %`.
    public static func percent(_ share: Double) -> String {
        DecimalText.tenths(share * 100, droppingZeroTenth: false) + " %"
    }

    /// The releases of `package` in `channel`.
    public func releases(_ channel: String, _ package: String) -> [Release] {
        releases.filter { $0.channel == channel && $0.package == package }
    }
}
