import PkgCrypto

/// A staged rollout of a package's new version: only devices whose bucket
/// falls below ``percent`` install it; the others follow ``previous``, the
/// version the manifest named before. Decided on the device, so one cached
/// manifest serves the whole fleet.
///
/// A device's bucket is `SHA-256(salt ":" deviceID)` read as a number in
/// [0, 100). The salt is new with every release, so the same devices are not
/// always first; raising the percentage only adds devices.
///
/// Named devices (QA phones, a lab kiosk) can be pinned to the release whatever the
/// percentage: ``devices`` holds `SHA-256(salt "/" deviceID)`, so the manifest does not
/// reveal the ids, and a pin lasts as long as the release (its salt).
public struct Rollout: Codable, Sendable, Hashable {
    /// Share of devices, 0 to 100, that install the entry's version.
    public var percent: Double
    /// Random text chosen when the release was published.
    public var salt: String
    /// What the devices outside the rollout install; nil: they keep what they have.
    public var previous: Release?
    /// Pins of devices that install the release whatever ``percent`` says (``pin(deviceID:salt:)``); nil: none.
    public var devices: [String]?

    /// Most devices one release may pin.
    public static let pinLimit = 1000

    /// A rollout to `percent` % of devices, and to those `devices` pins.
    public init(percent: Double, salt: String, previous: Release?, devices: [String]? = nil) {
        self.percent = percent
        self.salt = salt
        self.previous = previous
        self.devices = devices
    }

    /// Whether the device with `deviceID` is among those that install the new version.
    public func includes(deviceID: String) -> Bool {
        if let devices, devices.contains(Self.pin(deviceID: deviceID, salt: salt)) { return true }
        return Self.bucket(deviceID: deviceID, salt: salt) < percent
    }

    /// What the manifest holds for a pinned device: 32 hex digits of `SHA-256(salt "/" deviceID)`.
    public static func pin(deviceID: String, salt: String) -> String {
        Array(SHA256.hash(data: Array((salt + "/" + deviceID).utf8)).prefix(16)).hexString
    }

    /// The device's position in [0, 100) for this salt, in steps of 0.01.
    public static func bucket(deviceID: String, salt: String) -> Double {
        let digest = Array(SHA256.hash(data: Array((salt + ":" + deviceID).utf8)))
        let number = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Double(number % 10_000) / 100
    }

    /// The percentage as people write it: "10 %", "12.5 %".
    public var share: String { Self.format(percent) }

    /// Who installs a release: "50 % of devices, and 2 pinned devices" for a staged rollout to
    /// `percent` with `pinned` pins (nil: no pin list), "every device" without one (nil `percent`).
    package static func audience(percent: Double?, pinned: Int?) -> String {
        var audience = percent.map { format($0) + " of devices" } ?? "every device"
        if let pinned { audience += ", and \(pinned) pinned device\(pinned == 1 ? "" : "s")" }
        return audience
    }

    package static func format(_ percent: Double) -> String {
        percent == percent.rounded() ? "\(Int(percent)) %" : "\(percent) %"
    }

    /// A new random salt (16 hex digits).
    package static func makeSalt() -> String {
        (0..<8).map { _ in UInt8.random(in: 0...255) }.hexString
    }

    func validate(source: String, package: String) throws {
        func fail(_ reason: String) -> PkgError {
            PkgError(.malformedManifest, "manifest \(source): package '\(package)': rollout: \(reason)")
        }
        guard percent >= 0, percent <= 100 else { throw fail("percent must be 0 to 100") }
        guard (1...64).contains(salt.utf8.count), salt.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
            throw fail("salt must be 1-64 printable ASCII characters")
        }
        if let devices {
            guard devices.count <= Self.pinLimit else { throw fail("more than \(Self.pinLimit) pinned devices") }
            guard devices.allSatisfy({ $0.isLowerHex(digits: 32) }) else {
                throw fail("a pinned device must be 32 lower-case hex digits")
            }
        }
        try previous?.entry(name: package).validate(source: source)
    }
}
