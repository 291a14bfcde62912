/// How ``Updater`` switches a package to a newly installed version.
public enum Activation: Sendable, Hashable {
    /// Switch at once, for good.
    case immediate
    /// Switch on trial, run the check, and confirm, or switch back and hold the
    /// version when it fails. A run killed during the check is reverted by the next run.
    case healthCheck(HealthCheck)
    /// Switch on trial and leave it to the app to ``PackageStore/confirm(_:version:)``
    /// the version; an app that starts again without having confirmed it calls
    /// ``PackageStore/revertUnconfirmedTrials(confirmedBy:)``.
    case awaitingConfirmation
}
