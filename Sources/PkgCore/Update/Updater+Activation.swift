extension Updater {
    /// Switches to an installed version as ``activation`` says.
    func activate(_ entry: ManifestEntry) throws {
        switch activation {
        case .immediate:
            try store.activate(entry.name, version: entry.version)
        case .awaitingConfirmation:
            try store.activateOnTrial(entry.name, version: entry.version, confirmedBy: .app, now: clock())
        case .launches(let rule):
            try store.activateOnTrial(entry.name, version: entry.version, confirmedBy: .launches, rule: rule, now: clock())
        case .healthCheck(let check, let then):
            try store.activateOnTrial(entry.name, version: entry.version, confirmedBy: .healthCheck, now: clock())
            let path = store.layout.versionDirectory(entry.name, entry.version)
            let failure: String?
            do {
                failure = try check.failure(name: entry.name, version: entry.version, path: path)
            } catch {
                failure = "\(error)"
            }
            guard let failure else {
                if let then {
                    // Passed: the trial goes on, now by launches (the version stays active).
                    try store.activateOnTrial(entry.name, version: entry.version, confirmedBy: .launches, rule: then,
                                              now: clock())
                } else {
                    try store.confirm(entry.name, version: entry.version)
                }
                return
            }
            if let trial = try store.trial(of: entry.name) { try store.revert(trial) }
            throw PkgError(.healthCheckFailed, "\(entry.name) \(entry.version): \(failure); "
                           + Self.reverted(to: store.activeVersion(of: entry.name), held: entry.version))
        }
    }

    /// What a revert did: switched back to `back`, or, for a first install, left no version active.
    private static func reverted(to back: String?, held version: String) -> String {
        back.map { "switched back to \($0) and held \(version)" }
            ?? "no earlier version to switch back to, so none is active; held \(version)"
    }

    func revertedOutcome(_ trial: ActivationTrial) -> UpdateReport.PackageOutcome {
        let back = store.activeVersion(of: trial.name)
        return UpdateReport.PackageOutcome(
            name: trial.name, from: trial.version, to: back ?? "", action: .rolledBack,
            error: "\(trial.name) \(trial.version): health check did not finish (the run was stopped); "
                + Self.reverted(to: back, held: trial.version),
            errorCode: PkgError.Code.healthCheckFailed.description)
    }
}
