import PkgCrypto
import FoundationEssentials

/// What an outcome report says instead of the device id: HMAC-SHA256 keyed by the id, over the
/// package and the release the report is about, cut to 96 bits (16 base64url characters).
///
/// The reports of one device about one release share it, so a publisher counts distinct devices
/// per release; another release gives another value, so a device cannot be followed from one
/// release to the next, and without the id the value cannot be traced back to it. (With an id
/// that can be guessed, such as a host name given as `--device-id`, it can be tried: the id
/// pkgctl makes itself is a random UUID.)
public enum DevicePseudonym {
    /// The pseudonym of `deviceID` in reports about `release` of `package`.
    public static func make(deviceID: String, package: String, release: String) -> String {
        let message = Array("pkgctl-report-v1\u{0}\(package)\u{0}\(release)".utf8)
        let code = HMACSHA256.authenticationCode(for: message, key: Array(deviceID.utf8))
        // 12 bytes are 16 base64 characters with no padding; made URL-safe.
        return String(Data(code.prefix(12)).base64EncodedString().map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
