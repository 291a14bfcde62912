import PkgCore

/// What the outcome reports say about one release, measured against a ``RolloutWatch``'s
/// thresholds: how many devices tried it and failed it, and (when 404s are watched) how many
/// that ran it met a 404 inside the app, each with its 95 % interval.
public struct RolloutEvidence: Sendable, Hashable {
    /// Devices that tried the release (installed it, rolled it back or failed to install it).
    public var devices: Int
    /// Devices that rolled it back or failed to install it.
    public var failedDevices: Int
    /// `failedDevices / devices`, 0 to 1.
    public var failureRate: Double
    /// Its 95 % Wilson interval.
    public var failureRateInterval: ClosedRange<Double>
    /// The threshold on ``failureRate``, 0 to 1.
    public var maxFailureRate: Double
    /// The 404 signal, when the watch weighs it.
    public var notFound: NotFound?

    /// Devices running the release whose app met a 404 inside it.
    public struct NotFound: Sendable, Hashable {
        /// Devices that ran the release.
        public var servingDevices: Int
        /// Of them, those whose app met a 404 under its routes.
        public var devices: Int
        /// `devices / servingDevices`, 0 to 1.
        public var rate: Double
        /// Its 95 % Wilson interval.
        public var interval: ClosedRange<Double>
        /// The threshold on ``rate``, 0 to 1.
        public var maxRate: Double
    }

    /// Fewest distinct failed devices that can halt a release on the rate alone, with
    /// ``RolloutWatch/minDevices`` devices: one forged or freak report never halts one.
    public static let minFailures = 3
    /// Fewest distinct failed devices that can halt a release when the whole 95 % interval of
    /// the rate is above the threshold (a small canary where most devices failed).
    public static let minConfidentFailures = 2

    /// The evidence `release` gives (nil: no report of it yet).
    init(_ release: FleetTally.Release?, maxFailureRate: Double, maxNotFoundRate: Double?) {
        devices = release?.triedDevices ?? 0
        failedDevices = release?.failedDevices ?? 0
        failureRate = release?.failureRate ?? 0
        failureRateInterval = release?.failureRateInterval ?? 0...1
        self.maxFailureRate = maxFailureRate
        notFound = maxNotFoundRate.map { threshold in
            NotFound(servingDevices: release?.servingDevices ?? 0, devices: release?.notFoundDevices ?? 0,
                     rate: release?.notFoundRate ?? 0, interval: release?.notFoundRateInterval ?? 0...1, maxRate: threshold)
        }
    }

    /// "2 of 3 devices failed (66.7 %, 95 % interval 20.8 % to 93.9 %)", and the 404s when watched.
    public var summary: String {
        failureSummary + (notFound.map { "; " + $0.summary } ?? "")
    }

    /// "2 of 3 devices failed (66.7 %, 95 % interval 20.8 % to 93.9 %)".
    var failureSummary: String {
        "\(failedDevices) of \(devices) devices failed (\(Self.percent(failureRate)), 95 % interval "
            + "\(Self.percent(failureRateInterval.lowerBound)) to \(Self.percent(failureRateInterval.upperBound)))"
    }

    /// Why the release must be halted, with `minDevices` as the watch's floor; nil when it need not.
    /// A rate above its threshold halts with at least ``minFailures`` failed devices among
    /// `minDevices`, or with at least ``minConfidentFailures`` when even the interval's bottom
    /// is above the threshold.
    func breach(minDevices: Int) -> String? {
        if Self.confidentlyAbove(maxFailureRate, count: failedDevices, of: devices, rate: failureRate,
                                 interval: failureRateInterval, minDevices: minDevices) {
            return "\(failureSummary), above \(Self.percent(maxFailureRate))"
        }
        if let notFound, Self.confidentlyAbove(notFound.maxRate, count: notFound.devices, of: notFound.servingDevices,
                                               rate: notFound.rate, interval: notFound.interval, minDevices: minDevices) {
            return "\(notFound.summary), above \(Self.percent(notFound.maxRate))"
        }
        return nil
    }

    /// The most distinct devices behind a rate above its threshold: failed ones, or (404s
    /// watched) ones whose app met a 404.
    var failingDevices: Int {
        max(failureRate > maxFailureRate ? failedDevices : 0, notFound.map { $0.rate > $0.maxRate ? $0.devices : 0 } ?? 0)
    }

    /// Whether the failure rate, or the watched 404 rate, is above its threshold (whether or
    /// not the evidence is enough to halt on).
    var isAboveThreshold: Bool {
        failureRate > maxFailureRate || notFound.map { $0.rate > $0.maxRate } == true
    }

    private static func confidentlyAbove(_ threshold: Double, count: Int, of devices: Int, rate: Double,
                                         interval: ClosedRange<Double>, minDevices: Int) -> Bool {
        guard rate > threshold else { return false }
        return (count >= minFailures && devices >= minDevices) || (count >= minConfidentFailures && interval.lowerBound > threshold)
    }

    static func percent(_ share: Double) -> String {
        DecimalText.tenths(share * 100, droppingZeroTenth: false) + " %"
    }
}

extension RolloutEvidence.NotFound {
    /// "1 of 40 devices met a 404 inside the app (2.5 %, 95 % interval 0.4 % to 12.9 %)".
    var summary: String {
        "\(devices) of \(servingDevices) devices met a 404 inside the app (\(RolloutEvidence.percent(rate)), 95 % interval "
            + "\(RolloutEvidence.percent(interval.lowerBound)) to \(RolloutEvidence.percent(interval.upperBound)))"
    }
}
