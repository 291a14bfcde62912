import PkgCommandLine
import PkgCore

/// What `pkgctl update` runs with, each value from the highest ``ConfigLayers``
/// layer that sets it, else its default; checked as a whole.
struct UpdateSettings {
    var manifest: String
    var caFile: String?
    var trustedKeys: [String]
    /// The root of trust to start from (`--trusted-root`), instead of trusted keys.
    var trustedRoot: String?
    var threshold: Int
    var timestampKeys: [String]
    var deviceID: String?
    var keep: Int
    var healthCheck: String?
    var healthTimeout: Double
    /// How launches settle a new version's trial (`update.confirm-after-launches`,
    /// `update.revert-after-bad-launches`); nil: they do not.
    var launchRule: LaunchTrialRule?
    var jitter: Double
    var connectTimeout: Int
    var stallTimeout: Int
    var minRate: Int
    var deadline: Double
    var maxManifestSize: Int
    var attempts: Int
    var limits: ExtractionLimits
    var noWait: Bool
    var json: Bool
    var quiet: Bool
    /// Whether outcomes are reported to the origin, and where (nil: beside the manifest).
    var report: Bool
    var reportURL: String?
    /// When a new version may become active; empty: at once.
    var activateWindows: [ActivationWindow]
    /// The host app's version; nil: not stated.
    var runtime: RuntimeVersion?
    /// Seconds a run's prefetch lists may take together; 0: they are ignored.
    var prefetchTimeLimit: Double
    /// The base URL prefetches go to instead of https://HOST; nil: https://HOST.
    var prefetchUpstream: String?
    /// The image variants the device's engine decodes (`update.accept-images`); empty: every file.
    var acceptImages: Set<ImageVariant>

    /// The variants `update.accept-images` names: `avif`, `webp` or both, comma-separated.
    static func acceptImages(_ layers: ConfigLayers) throws -> Set<ImageVariant> {
        guard let text = try layers.string("update.accept-images") else { return [] }
        guard let variants = ImageVariant.list(text) else {
            throw layers.invalid("update.accept-images", "must list avif and/or webp, comma-separated")
        }
        return Set(variants)
    }

    /// How a new version is switched in: after the health check, on trial by launches, both (the
    /// check first), or at once.
    var activation: Activation {
        if let healthCheck { return .healthCheck(HealthCheck(command: healthCheck, timeout: healthTimeout), then: launchRule) }
        return launchRule.map(Activation.launches) ?? .immediate
    }

    /// The trial by launches the two settings ask for; nil when neither is set (the other
    /// takes its default when one is).
    static func launchRule(_ layers: ConfigLayers) throws -> LaunchTrialRule? {
        let confirm = try layers.integer("update.confirm-after-launches")
        let revert = try layers.integer("update.revert-after-bad-launches")
        guard confirm != nil || revert != nil else { return nil }
        for (key, value) in [("update.confirm-after-launches", confirm), ("update.revert-after-bad-launches", revert)] {
            if let value, !(1...LaunchTrialRule.limit).contains(value) {
                throw layers.invalid(key, "must be a count of launches from 1 to \(LaunchTrialRule.limit) (got \(value))")
            }
        }
        return try LaunchTrialRule(confirmAfter: confirm ?? LaunchTrialRule.defaultConfirmAfter,
                                   revertAfter: revert ?? LaunchTrialRule.defaultRevertAfter)
    }

    /// The host runtime `update.runtime` states; nil when none is set.
    static func runtime(_ layers: ConfigLayers) throws -> RuntimeVersion? {
        try layers.string("update.runtime").map { text in
            guard let runtime = RuntimeVersion(text) else {
                throw layers.invalid("update.runtime", "must be a version MAJOR[.MINOR[.PATCH]][-PRE][+BUILD] "
                                     + "(got '\(String(text.prefix(100)).escapedForMessage)')")
            }
            return runtime
        }
    }

    /// The values used when no layer sets them; the help texts and `pkgctl config` show these.
    enum Defaults {
        static let keep = 2
        static let healthTimeout = 30.0
        static let jitter = 0.0
        static let connectTimeout = 10
        static let stallTimeout = 30
        static let minRate = 1024
        static let deadline = "1h"
        static let threshold = 1
        static let attempts = 4
        static let prefetchTimeLimit = UpdatePrefetch.defaultTimeLimit
    }

    /// Throws a ``ConfigError`` naming the setting, and where it came from, that is
    /// missing, of the wrong type or out of range.
    init(_ layers: ConfigLayers) throws {
        guard try layers.string("update.manifest")?.isEmpty == false,
              let manifest = try layers.url("update.manifest", allowingFile: true) else {
            throw ConfigError("no manifest URL: pass --manifest, or set update.manifest in "
                              + (layers.file ?? ConfigLayers.defaultFile) + " or PKGCTL_UPDATE_MANIFEST")
        }
        self.manifest = manifest
        caFile = try layers.string("update.ca-file")
        trustedKeys = try layers.strings("update.trusted-key") ?? []
        trustedRoot = try layers.string("update.trusted-root")
        threshold = try layers.integer("update.threshold") ?? Defaults.threshold
        timestampKeys = try layers.strings("update.timestamp-key") ?? []
        deviceID = try layers.string("update.device-id")
        keep = try layers.integer("update.keep") ?? Defaults.keep
        healthCheck = try layers.string("update.health-check")
        healthTimeout = try layers.number("update.health-timeout") ?? Defaults.healthTimeout
        launchRule = try Self.launchRule(layers)
        jitter = try layers.number("update.jitter") ?? Defaults.jitter
        connectTimeout = try layers.integer("update.connect-timeout") ?? Defaults.connectTimeout
        stallTimeout = try layers.integer("update.stall-timeout") ?? Defaults.stallTimeout
        minRate = try layers.integer("update.min-rate") ?? Defaults.minRate
        let deadlineText = try layers.string("update.deadline") ?? Defaults.deadline
        guard let deadline = DurationText.parse(deadlineText), deadline >= 1 else {
            throw layers.invalid("update.deadline", "must be a duration of at least 1 second: SECONDS, or a number "
                                 + "followed by s, m, h or d (got '\(deadlineText.escapedForMessage)')")
        }
        self.deadline = deadline
        maxManifestSize = try layers.integer("update.max-manifest-size") ?? Updater.defaultMaxManifestSize
        attempts = try layers.integer("update.attempts") ?? Defaults.attempts
        let defaults = ExtractionLimits()
        let maxSize = try layers.integer("update.max-size") ?? Int(defaults.maxTotalUncompressedSize)
        limits = ExtractionLimits(maxEntries: try layers.integer("update.max-entries") ?? defaults.maxEntries,
                                  maxTotalUncompressedSize: UInt64(max(maxSize, 0)),
                                  maxCompressionRatio: try layers.number("update.max-ratio") ?? defaults.maxCompressionRatio)
        noWait = try layers.boolean("update.no-wait") ?? false
        json = try layers.boolean("update.json") ?? false
        quiet = try layers.boolean("update.quiet") ?? false
        report = try layers.boolean("update.report") ?? true
        reportURL = try layers.url("update.report-url")
        let windowTexts = try layers.strings("update.activate-window") ?? []
        activateWindows = try windowTexts.map { text in
            guard let window = ActivationWindow(text) else {
                throw layers.invalid("update.activate-window", "must be HH:MM-HH:MM, local time, opening and closing at "
                                     + "different minutes (got '\(String(text.prefix(100)).escapedForMessage)')")
            }
            return window
        }
        runtime = try Self.runtime(layers)
        prefetchTimeLimit = try layers.number("update.prefetch-time-limit") ?? Defaults.prefetchTimeLimit
        prefetchUpstream = try layers.url("update.prefetch-upstream")
        acceptImages = try Self.acceptImages(layers)

        guard keep >= 1 else { throw layers.invalid("update.keep", "must be at least 1") }
        if let reportURL, reportURL.contains("?") {
            throw layers.invalid("update.report-url", "'\(reportURL.escapedForMessage)' has a query; it must have none")
        }
        guard attempts >= 1 else { throw layers.invalid("update.attempts", "must be at least 1") }
        guard connectTimeout >= 1 else { throw layers.invalid("update.connect-timeout", "must be at least 1 second") }
        guard stallTimeout >= 1 else { throw layers.invalid("update.stall-timeout", "must be at least 1 second") }
        guard minRate >= 1 else { throw layers.invalid("update.min-rate", "must be at least 1 byte per second") }
        guard maxManifestSize >= 1024 else { throw layers.invalid("update.max-manifest-size", "must be at least 1024 bytes") }
        guard trustedRoot == nil || (trustedKeys.isEmpty && timestampKeys.isEmpty) else {
            throw layers.invalid("update.trusted-root", "is given with trusted or timestamp keys; the root says which keys to trust")
        }
        guard timestampKeys.isEmpty || !trustedKeys.isEmpty else {
            throw layers.invalid("update.timestamp-key", "needs trusted keys too: a timestamp vouches for a signed manifest")
        }
        guard threshold >= 1, threshold <= max(1, trustedKeys.count) else {
            throw layers.invalid("update.threshold", "must be 1 to the number of trusted keys (\(trustedKeys.count))")
        }
        guard limits.maxEntries >= 1 else { throw layers.invalid("update.max-entries", "must be positive") }
        guard maxSize >= 1 else { throw layers.invalid("update.max-size", "must be positive") }
        guard limits.maxCompressionRatio >= 1 else { throw layers.invalid("update.max-ratio", "must be at least 1") }
        guard healthTimeout > 0 else { throw layers.invalid("update.health-timeout", "must be positive") }
        guard (0...86_400).contains(jitter) else { throw layers.invalid("update.jitter", "must be 0 to 86400 seconds") }
        guard (0...3600).contains(prefetchTimeLimit) else {
            throw layers.invalid("update.prefetch-time-limit", "must be 0 (no prefetch) to 3600 seconds")
        }
        if let deviceID, deviceID.isEmpty || deviceID.utf8.count > 256 {
            throw layers.invalid("update.device-id", "must be 1 to 256 bytes")
        }
    }
}
