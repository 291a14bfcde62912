import FoundationEssentials
import Glibc

extension PackageStore {
    /// Makes `version` active on trial. The trial is written (and flushed)
    /// before `current` switches, so a crash at any point leaves either the
    /// old version active or the new one with its trial on record. A trial
    /// already pending for the package keeps its `previous`: the version to go
    /// back to is the last confirmed one. A trial by launches (`rule`) starts the version's
    /// ``LaunchTally`` afresh. Expects the store lock.
    public func activateOnTrial(_ name: String, version: String, confirmedBy: ActivationTrial.Confirmer,
                                rule: LaunchTrialRule? = nil, now: Date = Date()) throws {
        guard try record(of: name, version: version) != nil else {
            throw PkgError(.notInstalled, "\(name) \(version) is not installed under \(layout.root)")
        }
        let previous = try trial(of: name).map(\.previous) ?? activeVersion(of: name)
        let trial = ActivationTrial(name: name, version: version, previous: previous,
                                    confirmedBy: confirmedBy, startedAt: now, rule: rule)
        try layout.prepare()
        if rule != nil { try LaunchTally.remove(name: name, version: version, layout: layout) }
        try StateFile.save(trial, to: layout.trialFile(name))
        try activate(name, version: version)
    }

    /// The pending trial of `name`, if any.
    public func trial(of name: String) throws -> ActivationTrial? {
        try StateFile.load(ActivationTrial.self, from: layout.trialFile(name), what: "trial")
    }

    /// Every pending trial, by package name.
    public func pendingTrials() throws -> [ActivationTrial] {
        try FileSystem.contents(of: layout.trials).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }
            .compactMap { try trial(of: String($0.dropLast(".json".count))) }
    }

    /// Confirms the trial of exactly `version` of `name`: it stays active and
    /// is no longer reverted. Returns false, changing nothing, when no trial of
    /// that version is pending (a confirmation meant for another version never
    /// counts). Expects the store lock.
    @discardableResult
    public func confirm(_ name: String, version: String) throws -> Bool {
        guard let trial = try trial(of: name), trial.version == version,
              activeVersion(of: name) == version else { return false }
        try removeTrial(name)
        return true
    }

    /// Ends a trial by switching back to its previous (last confirmed) version,
    /// or to none, and holding the unconfirmed version that was active. When
    /// the previous version is still active (a crash before the switch) the
    /// trial is only dropped. Returns whether it switched back. Expects the store lock.
    @discardableResult
    public func revert(_ trial: ActivationTrial) throws -> Bool {
        let active = activeVersion(of: trial.name)
        guard active != trial.previous else {
            try removeTrial(trial.name)
            return false
        }
        // Usually the tried version; an earlier trial's version when a crash came between
        // writing this trial and switching to it. Neither was confirmed.
        if let active { try hold(trial.name, version: active) }
        if let previous = trial.previous, try record(of: trial.name, version: previous) != nil {
            try activate(trial.name, version: previous)
        } else {
            try deactivate(trial.name)
        }
        try removeTrial(trial.name)
        return true
    }

    /// Reverts every unconfirmed trial (only those of `confirmedBy`, when given)
    /// and returns the ones that switched back. An app calls this when it
    /// starts, before serving pages. Expects the store lock.
    @discardableResult
    public func revertUnconfirmedTrials(confirmedBy: ActivationTrial.Confirmer? = nil) throws -> [ActivationTrial] {
        var reverted: [ActivationTrial] = []
        for trial in try pendingTrials() where confirmedBy == nil || trial.confirmedBy == confirmedBy {
            if try revert(trial) { reverted.append(trial) }
        }
        return reverted
    }

    func removeTrial(_ name: String) throws {
        if unlink(layout.trialFile(name)) != 0, errno != ENOENT {
            throw fileSystemError("unlink", layout.trialFile(name))
        }
        try FileSystem.syncDirectory(layout.trials)
    }
}
