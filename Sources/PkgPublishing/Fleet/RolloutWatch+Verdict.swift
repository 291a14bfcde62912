import PkgCore

extension RolloutWatch {
    /// What a run decided.
    public enum Decision: String, Sendable, Hashable, Codable {
        /// The release moved to the next step.
        case advance
        /// It stays at its step: too little time, or too little evidence yet.
        case hold
        /// It was revoked: its failure (or 404) rate is above the threshold.
        case halt
        /// It is at 100 %.
        case done
        /// It is revoked already.
        case idle
        /// No device tried it in ``RolloutWatch/maxHolds`` intervals, or the logs hold no
        /// report at all: a person must look (is the fleet polling, reporting, this the right log?).
        case undecided
    }

    /// A decision, the release it is about, the evidence, and one line saying what and why.
    public struct Verdict: Sendable, Hashable {
        public var decision: Decision
        public var version: String
        /// The rollout percentage before the decision.
        public var percentBefore: Double
        /// The rollout percentage after the decision.
        public var percent: Double
        /// The numbers it was decided on.
        public var evidence: RolloutEvidence
        /// Intervals held at this step for want of evidence, this run included.
        public var holds: Int
        public var line: String
    }
}
