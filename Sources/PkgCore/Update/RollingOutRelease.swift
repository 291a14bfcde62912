/// A release of a package rolling out to a share of devices that does not include this
/// one (yet), as ``UpdateReport/PackageOutcome/rollingOut`` names it: a device kept on an
/// earlier version, or on none, can say why. `--json` writes it as
/// `"rollingOut": {"version": "2.0.0", "percent": 10}`.
public struct RollingOutRelease: Sendable, Hashable, Codable {
    /// The version rolling out.
    public var version: String
    /// The share of devices, 0 to 100, that install it.
    public var percent: Double

    /// `version` rolling out to `percent` % of devices.
    public init(version: String, percent: Double) {
        self.version = version
        self.percent = percent
    }

    /// What a person reads: "2.0.0 is rolling out to 10 % of devices; this device is not in it yet".
    public var sentence: String {
        "\(version) is rolling out to \(Rollout.format(percent)) of devices; this device is not in it yet"
    }
}
