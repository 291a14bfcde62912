/// How ``Updater`` switches a package to a newly installed version.
public enum Activation: Sendable, Hashable {
    /// Switch at once, for good.
    case immediate
    /// Switch on trial, run the check, and confirm, or switch back and hold the
    /// version when it fails. A run killed during the check is reverted by the next run.
    /// With a `then` rule, a version that passed stays on trial by launches instead of being confirmed.
    case healthCheck(HealthCheck, then: LaunchTrialRule? = nil)
    /// Switch on trial and let the version's launches settle it (``LaunchTrialRule``): the
    /// resolvers serving it confirm it or switch back and hold it from what the web view loaded.
    case launches(LaunchTrialRule)
    /// Switch on trial and leave it to the app to ``PackageStore/confirm(_:version:)``
    /// the version; an app that starts again without having confirmed it calls
    /// ``PackageStore/revertUnconfirmedTrials(confirmedBy:)``.
    case awaitingConfirmation
}
