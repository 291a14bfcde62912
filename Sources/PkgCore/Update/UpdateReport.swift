/// What one `update` run did, for people and for `--json`.
public struct UpdateReport: Sendable, Hashable, Codable {
    /// Whether the manifest was fetched or the origin answered 304.
    public enum ManifestStatus: String, Sendable, Hashable, Codable {
        case fetched
        case notModified
    }

    /// What happened to one package of the manifest.
    public enum Action: String, Sendable, Hashable, Codable {
        /// First version of the package.
        case installed
        /// A higher version than the active one.
        case upgraded
        /// A lower version than the active one.
        case downgraded
        /// The same version written differently ("1.0" for "1.0.0"): installed and switched to.
        case republished
        /// Already active.
        case unchanged
        /// The manifest's version is held back (by `rollback` or a failed
        /// trial); the active version stays. Not a failure.
        case held
        /// Switched in, failed its health check, switched back and held.
        case rolledBack
        /// A staged rollout that does not include this device yet, with no
        /// earlier version to install meanwhile; whatever is active (if anything) stays.
        case staged
        /// The active version was revoked; switched back to `to`, the most
        /// recently installed retained version that is neither revoked nor held.
        case revoked
        /// The manifest's version is revoked and nothing was installed before it.
        case withdrawn
        /// Installed and verified, waiting for an activation window (``ActivationWindow``);
        /// the active version stays until a run inside one. Not a failure.
        case pending
        /// No release of the package fits this device's host runtime (``Updater/runtime``);
        /// `to` names the newest release. An active version that fits stays; one that does not
        /// is left for a retained version that fits, or else stops being served (``PackageOutcome/detail``).
        /// Not a failure.
        case incompatible
        /// Not installed; the active version stays.
        case failed
    }

    /// One package's outcome.
    public struct PackageOutcome: Sendable, Hashable, Codable {
        /// The package.
        public var name: String
        /// The version active before the run, if any.
        public var from: String?
        /// The version the device should run: the manifest's, the one named
        /// before it outside a rollout, or the one switched back to; for
        /// `.staged`, the version rolling out.
        public var to: String
        /// What the run did to it.
        public var action: Action
        /// The one-line error when `action` is `.failed` or `.rolledBack`.
        public var error: String?
        /// The error's ``PkgError/Code`` name (`checksumMismatch`, `healthCheckFailed`, ...), stable
        /// for scripts; `unexpected` for a failure that is not a ``PkgError``. Set with ``error``.
        public var errorCode: String?
        /// One line on what the run did about the host runtime: the release chosen did not fit,
        /// or the active version was left because it did not.
        public var detail: String?
        /// The package's newest release when it is rolling out and this device is not among the
        /// devices it goes to: `to` is then the version named before it (or, for `.staged`, that
        /// release itself). Nil otherwise. Added to whatever ``action`` says; it changes no action.
        public var rollingOut: RollingOutRelease?
        /// What the run fetched for it and how long its update took; nil when it fetched nothing.
        public var transfer: PackageTransfer?
        /// Why it was installed from the whole zip although a delta or objects were offered; nil
        /// when it was not (or nothing cheaper was offered).
        public var zipFallback: ZipFallback?
    }

    /// Whether the manifest was fetched or not modified.
    public var manifest: ManifestStatus
    /// What fetching the manifest (and its timestamp) cost; nil when the run did not get that far.
    public var manifestTransfer: TransferCount? = nil
    /// One outcome per package of the manifest (however many releases it lists), in manifest
    /// order, except that packages whose active version does not fit the runtime come first.
    /// When the manifest was not modified, only what the last run that read it found and still
    /// stands: held versions (`.held`), releases staged away from this device (`.staged`), and
    /// active versions kept while a newer release rolls out without this device (`.unchanged`
    /// with ``PackageOutcome/rollingOut``).
    public var packages: [PackageOutcome]
    /// Versions removed by the garbage collection at the end of the run, as "NAME VERSION".
    public var removed: [String]
    /// Trials an earlier run left unconfirmed (it was killed during a health
    /// check), switched back and held at the start of this one.
    public var reverted: [PackageOutcome]

    /// True when no package failed or was rolled back and nothing was reverted
    /// (held, staged, revoked and withdrawn packages are not failures).
    public var succeeded: Bool {
        reverted.isEmpty && !packages.contains { $0.action == .failed || $0.action == .rolledBack }
    }
}
