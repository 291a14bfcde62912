import FoundationEssentials

extension PackageStore {
    /// Settles the trial by launches of `name` from its ``LaunchTally``: confirms the version
    /// after the rule's K clean launches, or, after M bad ones, switches back to the last
    /// confirmed version and holds it (``revert(_:)``, crash-safe as every switch). The verdict
    /// is written into the tally for `pkgctl update` to report. Returns it, or nil when nothing
    /// was settled: no trial by launches, too few launches, or (`waitingForLock` false) another
    /// process holds the store's lock, whose next settling (a launch, `pkgctl update`) does it.
    @discardableResult
    public func settleLaunchTrial(_ name: String, waitingForLock: Bool = true, now: Date = Date()) throws -> LaunchVerdict? {
        do {
            return try locked(wait: waitingForLock) { try settleLaunchTrialLocked(name, now: now) }
        } catch let error as PkgError where error.code == .locked && !waitingForLock {
            return nil
        }
    }

    /// The launches of `name` `version` recorded since it was switched in on trial by launches; nil when none.
    public func launchTally(of name: String, version: String) throws -> LaunchTally? {
        try LaunchTally.read(name: name, version: version, layout: layout)
    }

    /// Settles every pending trial by launches (``settleLaunchTrial(_:waitingForLock:now:)``); the
    /// verdicts reached. Expects the store lock.
    @discardableResult
    func settleLaunchTrials(now: Date = Date()) throws -> [LaunchVerdict] {
        try pendingTrials().filter { $0.confirmedBy == .launches }.compactMap { try settleLaunchTrialLocked($0.name, now: now) }
    }

    private func settleLaunchTrialLocked(_ name: String, now: Date) throws -> LaunchVerdict? {
        guard let trial = try trial(of: name), trial.confirmedBy == .launches, let rule = trial.rule,
              activeVersion(of: name) == trial.version,
              let tally = try LaunchTally.read(name: name, version: trial.version, layout: layout) else { return nil }
        if let written = tally.verdict {
            // A crash after the verdict was written and before the switch: the switch is made now.
            try carryOut(written.decision, of: trial)
            return written
        }
        let decision: LaunchVerdict.Decision
        if tally.bad >= rule.revertAfter {
            decision = .reverted
        } else if tally.clean >= rule.confirmAfter {
            decision = .confirmed
        } else {
            return nil
        }
        let verdict = LaunchVerdict(decision: decision, problem: decision == .reverted ? tally.lastProblem : nil,
                                    previous: decision == .reverted ? trial.previous : nil,
                                    servedDigest: try record(of: name, version: trial.version).map { TreeDigest.of($0.index) },
                                    decidedAt: now, reported: false)
        // The verdict first: a crash between the two leaves it written and the trial pending, which
        // the next settling finds decided and ends the same way.
        try LaunchTally.update(name: name, version: trial.version, layout: layout) { tally in
            tally.verdict = verdict
            return true
        }
        try carryOut(decision, of: trial)
        return verdict
    }

    private func carryOut(_ decision: LaunchVerdict.Decision, of trial: ActivationTrial) throws {
        switch decision {
        case .confirmed: try confirm(trial.name, version: trial.version)
        case .reverted: try revert(trial)
        }
    }
}
