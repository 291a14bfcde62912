import PkgCore

/// One setting `update` or `serve` reads from flags, the environment or the config file.
/// Its key in the file is the command's section and the long flag's name
/// (`update.trusted-key`); in the environment it is `PKGCTL_` and the key in upper
/// case with `_` for `.` and `-` (`PKGCTL_UPDATE_TRUSTED_KEY`).
struct Setting: Sendable {
    /// The kinds of value a setting holds, as JSON writes them.
    enum Kind: Sendable {
        case string, integer, number, boolean, strings

        /// How a value of this kind is described in an error.
        var name: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "true or false"
            case .strings: "a list of strings"
            }
        }
    }

    /// `root`, `update.keep`, `serve.port`.
    let key: String
    let kind: Kind
    /// What is used when no layer sets it, as `pkgctl config` shows it; nil when there is none.
    let defaultText: String?

    /// The flag that sets it: `--keep`.
    var flag: String { "--" + (key.split(separator: ".").last.map(String.init) ?? key) }

    /// The environment variable that sets it: `PKGCTL_UPDATE_KEEP`.
    var environmentVariable: String {
        "PKGCTL_" + String(key.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 })
    }

    /// Every setting, in the order `pkgctl config` lists them.
    static let all: [Setting] = [
        Setting(key: "root", kind: .string, defaultText: "$XDG_DATA_HOME/pkgctl or ~/.local/share/pkgctl"),
        Setting(key: "update.manifest", kind: .string, defaultText: nil),
        Setting(key: "update.ca-file", kind: .string, defaultText: nil),
        Setting(key: "update.trusted-key", kind: .strings, defaultText: "[] (manifests not authenticated)"),
        Setting(key: "update.trusted-root", kind: .string, defaultText: nil),
        Setting(key: "update.timestamp-key", kind: .strings, defaultText: "[] (no timestamp read)"),
        Setting(key: "update.threshold", kind: .integer, defaultText: "\(UpdateSettings.Defaults.threshold)"),
        Setting(key: "update.device-id", kind: .string, defaultText: "a random id kept in the store"),
        Setting(key: "update.keep", kind: .integer, defaultText: "\(UpdateSettings.Defaults.keep)"),
        Setting(key: "update.health-check", kind: .string, defaultText: nil),
        Setting(key: "update.health-timeout", kind: .number,
                defaultText: DecimalText.tenths(UpdateSettings.Defaults.healthTimeout, droppingZeroTenth: true)),
        Setting(key: "update.confirm-after-launches", kind: .integer,
                defaultText: "none (\(LaunchTrialRule.defaultConfirmAfter) when only update.revert-after-bad-launches is set)"),
        Setting(key: "update.revert-after-bad-launches", kind: .integer,
                defaultText: "none (\(LaunchTrialRule.defaultRevertAfter) when only update.confirm-after-launches is set)"),
        Setting(key: "update.jitter", kind: .number,
                defaultText: DecimalText.tenths(UpdateSettings.Defaults.jitter, droppingZeroTenth: true)),
        Setting(key: "update.connect-timeout", kind: .integer, defaultText: "\(UpdateSettings.Defaults.connectTimeout)"),
        Setting(key: "update.stall-timeout", kind: .integer, defaultText: "\(UpdateSettings.Defaults.stallTimeout)"),
        Setting(key: "update.min-rate", kind: .integer, defaultText: "\(UpdateSettings.Defaults.minRate)"),
        Setting(key: "update.deadline", kind: .string, defaultText: UpdateSettings.Defaults.deadline),
        Setting(key: "update.max-manifest-size", kind: .integer, defaultText: "\(Updater.defaultMaxManifestSize)"),
        Setting(key: "update.attempts", kind: .integer, defaultText: "\(UpdateSettings.Defaults.attempts)"),
        Setting(key: "update.max-entries", kind: .integer, defaultText: "\(ExtractionLimits().maxEntries)"),
        Setting(key: "update.max-size", kind: .integer, defaultText: "\(ExtractionLimits().maxTotalUncompressedSize)"),
        Setting(key: "update.max-ratio", kind: .number, defaultText: "\(Int(ExtractionLimits().maxCompressionRatio))"),
        Setting(key: "update.no-wait", kind: .boolean, defaultText: "false"),
        Setting(key: "update.json", kind: .boolean, defaultText: "false"),
        Setting(key: "update.quiet", kind: .boolean, defaultText: "false"),
        Setting(key: "update.report", kind: .boolean, defaultText: "true"),
        Setting(key: "update.report-url", kind: .string, defaultText: "report/v1 beside the manifest"),
        Setting(key: "update.activate-window", kind: .strings, defaultText: "[] (activate at once)"),
        Setting(key: "update.runtime", kind: .string, defaultText: "not stated (releases for any runtime)"),
        Setting(key: "update.prefetch-time-limit", kind: .number,
                defaultText: DecimalText.tenths(UpdateSettings.Defaults.prefetchTimeLimit, droppingZeroTenth: true)),
        Setting(key: "update.prefetch-upstream", kind: .string, defaultText: "https://HOST"),
        Setting(key: "update.accept-images", kind: .string, defaultText: "none (every file as published)"),
        Setting(key: "serve.bind", kind: .string, defaultText: ServeSettings.Defaults.bind),
        Setting(key: "serve.port", kind: .integer, defaultText: "\(ServeSettings.Defaults.port)"),
        Setting(key: "serve.default-host", kind: .string, defaultText: "the only package's first route"),
        Setting(key: "serve.upstream", kind: .string, defaultText: "https://HOST"),
        Setting(key: "serve.ca-file", kind: .string, defaultText: nil),
        Setting(key: "serve.offline", kind: .boolean, defaultText: "false"),
        Setting(key: "serve.quiet", kind: .boolean, defaultText: "false"),
        Setting(key: "serve.metrics-port", kind: .integer, defaultText: nil),
        Setting(key: "serve.source", kind: .string, defaultText: "none (the store's packages)"),
        Setting(key: "serve.route", kind: .string, defaultText: ServeSettings.Defaults.sourceRoute),
        Setting(key: "serve.spa-fallback", kind: .string, defaultText: nil),
        Setting(key: "serve.immutable", kind: .strings, defaultText: "[]"),
        Setting(key: "serve.header", kind: .strings, defaultText: "[]"),
    ]

    /// The setting named `key`; traps for a key not in ``all`` (a programming error).
    static func named(_ key: String) -> Setting {
        guard let setting = all.first(where: { $0.key == key }) else { preconditionFailure("unknown setting \(key)") }
        return setting
    }
}
