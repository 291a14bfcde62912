import FoundationEssentials

/// Where everything lives under a store root:
///
/// ```
/// ROOT/packages/NAME/VERSION/...      immutable once installed
/// ROOT/packages/NAME/current          symlink to VERSION, replaced by rename(2)
/// ROOT/cache/[NAME@VERSION/]HOST/PATH write-through overlay of the resolver
/// ROOT/staging/                       work in progress; emptied by recovery
/// ROOT/objects/SHA256                 verified objects of a delta install not finished yet
/// ROOT/state/manifest.json            validators of the last complete update
/// ROOT/state/trust.json               sequence and expiry of the newest signed manifest accepted
/// ROOT/state/holds.json               versions held back by rollback or a failed health check
/// ROOT/state/pending.json             versions installed and waiting for an activation window
/// ROOT/state/incompatible.json        versions no longer served because they do not fit the host runtime
/// ROOT/state/trials/NAME.json         a version activated on trial, until confirmed
/// ROOT/state/device-id                this device's id for staged rollouts
/// ROOT/state/reports/                 outcome reports not yet delivered, and `last.json`
/// ROOT/state/signals/NAME/VERSION.json    what resolvers saw go wrong under a version's routes
/// ROOT/state/packages/NAME/VERSION.json   record and file index of a version
/// ROOT/lock                           flock(2) held while the store changes
/// ```
public struct StoreLayout: Sendable, Hashable {
    /// The store's root directory.
    public let root: String

    /// A layout under `root` (made absolute against the working directory).
    public init(root: String) {
        let absolute = root.hasPrefix("/") ? root : FileManager.default.currentDirectoryPath + "/" + root
        self.root = PathName.standardized(absolute)
    }

    /// The default root: `$PKGCTL_ROOT`, else `$XDG_DATA_HOME/pkgctl`, else `~/.local/share/pkgctl`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let root = environment["PKGCTL_ROOT"], !root.isEmpty { return root }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/pkgctl" }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/share/pkgctl"
    }

    /// `ROOT/packages`: one directory per package.
    public var packages: String { root + "/packages" }
    /// `ROOT/cache`: the resolver's write-through overlay. The directory keeps its
    /// first name so that stores written by earlier versions keep their overlay.
    public var overlay: String { root + "/cache" }
    /// `ROOT/staging`: work in progress, emptied by recovery.
    public var staging: String { root + "/staging" }
    /// `ROOT/objects`: verified objects of delta installs not finished yet, by SHA-256.
    public var objects: String { root + "/objects" }
    /// `ROOT/state`: manifest validators and version records.
    public var state: String { root + "/state" }
    /// `ROOT/lock`, the file `StoreLock` holds.
    public var lockFile: String { root + "/lock" }
    /// `ROOT/state/manifest.json`: validators of the last complete update.
    public var manifestState: String { state + "/manifest.json" }
    /// `ROOT/state/trust.json`: the newest signed manifest accepted.
    public var trustState: String { state + "/trust.json" }
    /// `ROOT/state/root.json`: the newest root of trust accepted (``RootUpdate``).
    public var rootState: String { state + "/root.json" }
    /// `ROOT/state/holds.json`: held versions by package.
    public var holds: String { state + "/holds.json" }
    /// `ROOT/state/pending.json`: per package, the version installed and waiting for an activation window.
    public var pending: String { state + "/pending.json" }
    /// `ROOT/state/incompatible.json`: per package, the version no longer served because it does not fit the host.
    public var incompatible: String { state + "/incompatible.json" }
    /// `ROOT/state/device-id`: this device's id for staged rollouts.
    public var deviceID: String { state + "/device-id" }
    /// `ROOT/state/trials`: one file per package with a version on trial.
    public var trials: String { state + "/trials" }
    /// `ROOT/state/reports`: outcome reports waiting for the origin (``ReportSpool``).
    public var reports: String { state + "/reports" }
    /// `ROOT/state/trials/NAME.json`.
    public func trialFile(_ name: String) -> String { trials + "/" + name + ".json" }

    /// `ROOT/packages/NAME`.
    public func packageDirectory(_ name: String) -> String { packages + "/" + name }
    /// `ROOT/packages/NAME/VERSION`.
    public func versionDirectory(_ name: String, _ version: String) -> String { packageDirectory(name) + "/" + version }
    /// `ROOT/packages/NAME/current`, the symlink naming the active version.
    public func currentLink(_ name: String) -> String { packageDirectory(name) + "/" + Self.currentLinkName }
    /// The name of the link in `ROOT/packages/NAME` that names the active version; no version may take it.
    public static let currentLinkName = "current"
    /// `ROOT/state/packages/NAME`.
    public func recordDirectory(_ name: String) -> String { state + "/packages/" + name }
    /// `ROOT/state/packages/NAME/VERSION.json`, the version's record.
    public func recordFile(_ name: String, _ version: String) -> String { recordDirectory(name) + "/" + version + ".json" }
    /// `ROOT/cache/NAME@VERSION`: the resolver's write-through answers fetched while that version was active.
    public func overlayDirectory(_ name: String, _ version: String) -> String {
        overlay + "/" + Self.overlayDirectoryName(name, version)
    }

    static func overlayDirectoryName(_ name: String, _ version: String) -> String { name + "@" + version }

    /// Creates the top-level directories when missing.
    func prepare() throws {
        for directory in [packages, overlay, staging, objects, state + "/packages", trials] {
            try FileSystem.makeDirectories(directory)
        }
    }
}
