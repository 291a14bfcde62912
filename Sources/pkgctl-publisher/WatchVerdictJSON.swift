import PkgCore
import PkgPublishing

/// `fleet watch --json`: the decision and the numbers it was made on. Rates are shares, 0 to 1,
/// as in `fleet report --json`; percentages of the rollout are 0 to 100.
struct WatchVerdictJSON: Encodable {
    var package: String
    var runtime: String?
    var version: String
    /// advance, hold, halt, done, idle or undecided.
    var decision: String
    var percentBefore: Double
    var percentAfter: Double
    var devices: Int
    var failedDevices: Int
    var failureRate: Double
    var failureRateLow: Double
    var failureRateHigh: Double
    var maxFailureRate: Double
    var minDevices: Int
    var holds: Int
    var maxHolds: Int
    var notFound: NotFound?
    var dryRun: Bool
    /// The line the text output prints.
    var line: String

    struct NotFound: Encodable {
        var servingDevices: Int
        var notFoundDevices: Int
        var notFoundRate: Double
        var notFoundRateLow: Double
        var notFoundRateHigh: Double
        var maxNotFoundRate: Double
    }

    init(package: String, runtime: String?, verdict: RolloutWatch.Verdict, dryRun: Bool, minDevices: Int, maxHolds: Int) {
        let evidence = verdict.evidence
        self.package = package
        self.runtime = runtime
        version = verdict.version
        decision = verdict.decision.rawValue
        percentBefore = verdict.percentBefore
        percentAfter = verdict.percent
        devices = evidence.devices
        failedDevices = evidence.failedDevices
        failureRate = evidence.failureRate
        failureRateLow = evidence.failureRateInterval.lowerBound
        failureRateHigh = evidence.failureRateInterval.upperBound
        maxFailureRate = evidence.maxFailureRate
        self.minDevices = minDevices
        holds = verdict.holds
        self.maxHolds = maxHolds
        notFound = evidence.notFound.map {
            NotFound(servingDevices: $0.servingDevices, notFoundDevices: $0.devices, notFoundRate: $0.rate,
                     notFoundRateLow: $0.interval.lowerBound, notFoundRateHigh: $0.interval.upperBound, maxNotFoundRate: $0.maxRate)
        }
        self.dryRun = dryRun
        line = verdict.line
    }
}
