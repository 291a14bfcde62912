/// One device's outcome for one release of a package: what `pkgctl update` sends to the origin
/// as the query of a plain `GET REPORT_URL?QUERY`, and what `pkgctl fleet report` reads back
/// from the origin's access log. Version 1 of the format; every field is in the query:
///
/// ```text
/// p=demo&r=2.0.0&f=1.0.0&a=rolledBack&c=exit&d=Qk3xV0Rj5n1T0d8a&v=0.1.0
/// ```
///
/// `p` package, `r` the release the outcome is about, `f` the version active before,
/// `a` the outcome, `c` why a release was rolled back, `e` the error code of a failure,
/// `d` the device's ``DevicePseudonym`` for this release, `v` pkgctl's version; for `serving`,
/// `n` and `o`: the release's ``ServingSignals`` totals on the device (404s inside the app,
/// origin fallbacks); for an install or a failure, `b`: the bytes the run fetched for the release
/// (``PackageTransfer/bytes``); for a trial by launches settled (`confirmed`, `reverted`), `s`: the
/// served tree's digest, and for a revert `c` its reason and `n` the missing files; for an install
/// from the zip although a delta or objects were offered, `z`: why (``ZipFallback``). Nothing else about the device is sent (no id, no path, no URL, no error text).
public struct OutcomeReport: Sendable, Hashable, Codable {
    /// What happened to the release on the device.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        case installed, upgraded, downgraded, rolledBack, failed, held, revoked, staged
        /// The release is active and its resolvers saw something go wrong (`n`, `o`).
        case serving
        /// The release is installed and waits for the device's activation window.
        case pending
        /// No release of the package fits the device's host runtime; the report names the newest.
        case incompatible
        /// The release's trial by launches confirmed it (`s`: the served tree's digest).
        case confirmed
        /// The release's trial by launches switched back from it and held it (`c`: the
        /// ``LaunchProblem/Reason``; `n`: the missing files of its last bad launch; `s`).
        case reverted
    }

    /// The package.
    public var package: String
    /// The release the outcome is about: installed, tried, held, revoked, staged or failed.
    public var release: String
    /// The version active before, if any.
    public var from: String?
    /// What happened.
    public var outcome: Outcome
    /// For `.rolledBack`: `exit`, `timeout` or `signal` (the health check's end), `stopped`
    /// (the run was killed during it), `start` (it could not be run).
    public var cause: String?
    /// For `.failed`: the ``PkgError/Code`` name (`checksumMismatch`, ...).
    public var errorCode: String?
    /// For `.serving`: the origin's 404s under the release's routes on the device since it was activated.
    public var notFound: Int?
    /// For `.serving`: origin fallbacks under the release's routes on the device since it was activated.
    public var originFallbacks: Int?
    /// For an install, an upgrade, a downgrade or a failure: the bytes the run fetched for the
    /// release (``PackageTransfer/bytes``); nil when the report does not say.
    public var bytes: UInt64?
    /// For `.confirmed` and `.reverted`: the first 16 hex digits of the served tree's
    /// tree digest (`TreeDigest`, the one tree deltas name), to compare with the tree the publisher released.
    public var servedDigest: String?
    /// For an install, an upgrade or a downgrade: why it came from the whole zip although a delta
    /// or objects were offered (``ZipFallback``); nil when it did not.
    public var zipFallback: ZipFallback?
    /// The device's pseudonym for this release.
    public var device: String
    /// The reporting pkgctl's version.
    public var client: String

    /// A report of the given fields.
    public init(package: String, release: String, from: String?, outcome: Outcome, cause: String? = nil,
                errorCode: String? = nil, notFound: Int? = nil, originFallbacks: Int? = nil, bytes: UInt64? = nil,
                device: String, client: String) {
        self.package = package
        self.release = release
        self.from = from
        self.outcome = outcome
        self.cause = cause
        self.errorCode = errorCode
        self.notFound = notFound
        self.originFallbacks = originFallbacks
        self.bytes = bytes
        self.device = device
        self.client = client
    }

    /// The report of one package's outcome in an update run, or nil for outcomes not reported
    /// (unchanged, republished, withdrawn). `wasReverted`: a trial an earlier, killed run left.
    public init?(_ outcome: UpdateReport.PackageOutcome, wasReverted: Bool, deviceID: String, client: String) {
        let kind: Outcome
        switch outcome.action {
        case .installed: kind = .installed
        case .upgraded: kind = .upgraded
        case .downgraded: kind = .downgraded
        case .rolledBack: kind = .rolledBack
        case .failed: kind = .failed
        case .held: kind = .held
        case .revoked: kind = .revoked
        case .staged: kind = .staged
        case .pending: kind = .pending
        case .incompatible: kind = .incompatible
        case .unchanged, .republished, .withdrawn: return nil
        }
        // A revocation and a reverted trial are about the version left; the rest about the one aimed at.
        let release = (kind == .revoked || wasReverted) ? outcome.from ?? outcome.to : outcome.to
        guard !release.isEmpty else { return nil }
        // A reverted trial's device is back on `to`, the version active before the trial.
        let before = wasReverted ? (outcome.to.isEmpty ? nil : outcome.to) : outcome.from
        self.init(package: outcome.name, release: release, from: before, outcome: kind,
                  cause: kind == .rolledBack ? (wasReverted ? "stopped" : HealthCheck.cause(of: outcome.error ?? "")) : nil,
                  errorCode: kind == .failed ? outcome.errorCode : nil, bytes: outcome.transfer?.bytes,
                  device: DevicePseudonym.make(deviceID: deviceID, package: outcome.name, release: release),
                  client: client)
        if kind == .installed || kind == .upgraded || kind == .downgraded { zipFallback = outcome.zipFallback }
    }

    /// The fields as a URL query, percent-encoded.
    public var query: String {
        var fields = [("p", package), ("r", release)]
        if let from { fields.append(("f", from)) }
        fields.append(("a", outcome.rawValue))
        if let cause { fields.append(("c", cause)) }
        if let errorCode { fields.append(("e", errorCode)) }
        if let notFound { fields.append(("n", String(notFound))) }
        if let originFallbacks { fields.append(("o", String(originFallbacks))) }
        if let bytes { fields.append(("b", String(bytes))) }
        if let servedDigest { fields.append(("s", servedDigest)) }
        if let zipFallback { fields.append(("z", zipFallback.rawValue)) }
        fields += [("d", device), ("v", client)]
        return fields.map { $0.0 + "=" + Self.encode($0.1) }.joined(separator: "&")
    }

    /// Longest value of any field accepted when reading a query.
    static let fieldLimit = 128

    /// Reads a query written by ``query``; nil when it is not one (a field missing, repeated,
    /// too long, badly escaped, a count that is not a number, or an unknown outcome). Unknown
    /// fields are ignored, for later versions.
    public init?(query: Substring) {
        var values: [UInt8: String] = [:]
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            guard pair.count >= 2, pair[pair.index(after: pair.startIndex)] == UInt8(ascii: "=") else { continue }
            let key = pair[pair.startIndex]
            guard let value = Self.decode(pair.dropFirst(2)) else { return nil }
            guard values[key] == nil else { return nil }
            values[key] = value
        }
        guard let package = values[UInt8(ascii: "p")], let release = values[UInt8(ascii: "r")],
              let outcome = values[UInt8(ascii: "a")].flatMap(Outcome.init(rawValue:)),
              let device = values[UInt8(ascii: "d")], let client = values[UInt8(ascii: "v")],
              !package.isEmpty, !release.isEmpty, !device.isEmpty else { return nil }
        var counts: [Int?] = []
        for key in [UInt8(ascii: "n"), UInt8(ascii: "o"), UInt8(ascii: "b")] {
            guard let text = values[key] else {
                counts.append(nil)
                continue
            }
            guard text.utf8.count <= 18, allASCIIDigits(text.utf8), let count = Int(text) else { return nil }
            counts.append(count)
        }
        self.init(package: package, release: release, from: values[UInt8(ascii: "f")], outcome: outcome,
                  cause: values[UInt8(ascii: "c")], errorCode: values[UInt8(ascii: "e")], notFound: counts[0],
                  originFallbacks: counts[1], bytes: counts[2].map(UInt64.init), device: device, client: client)
        servedDigest = values[UInt8(ascii: "s")]
        zipFallback = values[UInt8(ascii: "z")].flatMap(ZipFallback.init(rawValue:))  // a later reason: unknown here
    }

    /// The report of a trial by launches settled on the device.
    public init(_ verdict: LaunchVerdict, package: String, release: String, deviceID: String, client: String) {
        self.init(package: package, release: release, from: verdict.previous,
                  outcome: verdict.decision == .confirmed ? .confirmed : .reverted,
                  cause: verdict.problem?.reason.rawValue,
                  notFound: verdict.problem.flatMap { $0.reason == .missingFile ? $0.missingCount : nil },
                  device: DevicePseudonym.make(deviceID: deviceID, package: package, release: release), client: client)
        servedDigest = verdict.servedDigest.map { String($0.prefix(16)) }
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters (`+` too: a query may read it as a space).
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }

    /// A percent-decoded value of printable ASCII, at most ``fieldLimit`` bytes; nil otherwise.
    static func decode(_ encoded: Substring.UTF8View.SubSequence) -> String? {
        var bytes: [UInt8] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            var byte = encoded[index]
            if byte == UInt8(ascii: "%") {
                let high = encoded.index(after: index)
                guard high < encoded.endIndex, encoded.index(after: high) < encoded.endIndex,
                      let h = hexValue(encoded[high]), let l = hexValue(encoded[encoded.index(after: high)]) else { return nil }
                byte = h << 4 | l
                index = encoded.index(after: high)
            }
            guard byte > 0x20, byte < 0x7f, bytes.count < fieldLimit else { return nil }
            bytes.append(byte)
            index = encoded.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
