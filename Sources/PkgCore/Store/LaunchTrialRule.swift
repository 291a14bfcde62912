/// When a version on trial by launches is settled: confirmed after ``confirmAfter`` clean
/// launches, or switched back and held after ``revertAfter`` bad ones (``LaunchRecorder`` says
/// what a launch and a bad one are). A version never launched stays on trial.
public struct LaunchTrialRule: Codable, Sendable, Hashable {
    /// Clean launches that confirm the version (K).
    public var confirmAfter: Int
    /// Bad launches that revert it (M).
    public var revertAfter: Int

    /// Three clean launches confirm; two bad ones revert (one bad launch may be the user's
    /// network or a killed app; two in a row rarely are).
    public static let defaultConfirmAfter = 3
    /// See ``defaultConfirmAfter``.
    public static let defaultRevertAfter = 2
    /// The largest K or M taken: beyond it a trial would never end on a device used daily.
    public static let limit = 1000

    /// A rule of K and M, each 1 through ``limit``; throws ``PkgError/Code/invalidArgument`` otherwise.
    public init(confirmAfter: Int = defaultConfirmAfter, revertAfter: Int = defaultRevertAfter) throws {
        for (value, flag) in [(confirmAfter, "--confirm-after-launches"), (revertAfter, "--revert-after-bad-launches")]
        where !(1...Self.limit).contains(value) {
            throw PkgError(.invalidArgument, "\(flag) \(value) is not a count of launches from 1 to \(Self.limit)")
        }
        self.confirmAfter = confirmAfter
        self.revertAfter = revertAfter
    }
}
