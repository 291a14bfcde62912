import CCurl

/// The one error type of PkgCore: a stable ``Code`` plus a one-line message
/// that names what failed and where (a package, an entry, a path, a URL).
///
/// ```swift
/// do { try installer.install(...) }
/// catch let error as PkgError where error.code == .unsafeEntry { ... }
/// ```
public struct PkgError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added over time.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, Hashable {
            case invalidArgument
            case malformedManifest
            case transferFailed
            case httpStatus
            case checksumMismatch
            case sizeMismatch
            case insufficientSpace
            case unsafeEntry
            case archiveLimit
            case corruptArchive
            case fileSystem
            case notInstalled
            case locked
            case verificationFailed
            case untrustedManifest
            case invalidKey
            case healthCheckFailed
            case responseTooLarge
            case tooSlow
            case deadlineExceeded
            case noManifest
            case downgrade
            case untrustedSigningKey
            case untrustedRoot
        }
        let value: Value

        /// An argument or setting is out of range or malformed.
        public static let invalidArgument = Code(value: .invalidArgument)
        /// The manifest is not valid JSON of the v1 schema.
        public static let malformedManifest = Code(value: .malformedManifest)
        /// libcurl could not complete a transfer (connect, timeout, cut connection).
        public static let transferFailed = Code(value: .transferFailed)
        /// The origin answered with an unexpected HTTP status.
        public static let httpStatus = Code(value: .httpStatus)
        /// A download's SHA-256 differs from the manifest's.
        public static let checksumMismatch = Code(value: .checksumMismatch)
        /// A download's size differs from the manifest's.
        public static let sizeMismatch = Code(value: .sizeMismatch)
        /// The filesystem lacks room for a download or an extraction.
        public static let insufficientSpace = Code(value: .insufficientSpace)
        /// A zip entry would write outside its directory, or is a symlink, duplicate or encrypted.
        public static let unsafeEntry = Code(value: .unsafeEntry)
        /// A bundle exceeds an entry-count, size or compression-ratio limit.
        public static let archiveLimit = Code(value: .archiveLimit)
        /// libzip cannot read the archive, or an entry fails its CRC.
        public static let corruptArchive = Code(value: .corruptArchive)
        /// A filesystem call failed.
        public static let fileSystem = Code(value: .fileSystem)
        /// The named package or version is not installed.
        public static let notInstalled = Code(value: .notInstalled)
        /// Another process holds the store's lock.
        public static let locked = Code(value: .locked)
        /// Installed files differ from the index written at install.
        public static let verificationFailed = Code(value: .verificationFailed)
        /// Trusted keys are configured and the manifest is unsigned, badly signed,
        /// expired, or older than one already accepted.
        public static let untrustedManifest = Code(value: .untrustedManifest)
        /// A key file is missing, malformed, the wrong kind of key, or readable by others.
        public static let invalidKey = Code(value: .invalidKey)
        /// A new version failed its health check and was switched back.
        public static let healthCheckFailed = Code(value: .healthCheckFailed)
        /// An answer from the origin is larger than its bound: a manifest past
        /// ``Updater/maxManifestSize`` (counted after decoding), or a header past libcurl's.
        public static let responseTooLarge = Code(value: .responseTooLarge)
        /// A transfer stayed below ``TransferOptions/minimumRate`` for ``TransferOptions/stallTimeout`` seconds.
        public static let tooSlow = Code(value: .tooSlow)
        /// The run's ``TransferOptions/deadline`` passed before a transfer ended.
        public static let deadlineExceeded = Code(value: .deadlineExceeded)
        /// A publishing folder has no `manifest.json` to read or change.
        public static let noManifest = Code(value: .noManifest)
        /// A release would sort below the one the manifest names for its slot now.
        public static let downgrade = Code(value: .downgrade)
        /// A publishing command was given signing keys that include none of those that signed the
        /// document it replaces: devices that trust only those would refuse it.
        public static let untrustedSigningKey = Code(value: .untrustedSigningKey)
        /// A root of trust (`--trusted-root`, or a newer one the origin published under
        /// `roots/`) was refused: not signed by the keys it must be, not the next version,
        /// expired, or malformed.
        public static let untrustedRoot = Code(value: .untrustedRoot)

        /// The code's name, e.g. `unsafeEntry`.
        public var description: String { value.rawValue }
    }

    /// What the caller can change to get past a failure, when it is one of a few known
    /// choices; a front end names its own option for it (pkgctl: `--force`).
    public struct Remedy: Sendable, Hashable, CustomStringConvertible {
        enum Value: String, Sendable, Hashable {
            case force
            case signingKey
            case trustedKeys
        }
        let value: Value

        /// Ask again with `force` (e.g. ``Publisher/setRollout(name:percent:devices:force:signer:)``).
        public static let force = Remedy(value: .force)
        /// Pass a signing key, so a signed manifest stays signed.
        public static let signingKey = Remedy(value: .signingKey)
        /// Pass the trusted keys of a store that has accepted signed manifests.
        public static let trustedKeys = Remedy(value: .trustedKeys)

        /// The remedy's name, e.g. `force`.
        public var description: String { value.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// A one-line, human-readable account naming what and where.
    public internal(set) var message: String
    /// The `errno` behind a filesystem failure, when there is one.
    public let errno: Int32?
    /// The HTTP status behind an ``Code/httpStatus`` failure.
    public let httpStatus: Int?
    /// libcurl's result behind a ``Code/transferFailed`` failure, when libcurl gave one.
    let curlCode: CURLcode.RawValue?

    /// What the caller can change to get past it, when known.
    public let remedy: Remedy?

    /// Creates an error with a code and a one-line message.
    public init(_ code: Code, _ message: String, errno: Int32? = nil, remedy: Remedy? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.errno = errno
        self.remedy = remedy
        self.httpStatus = httpStatus
        curlCode = nil
    }

    /// A ``Code/transferFailed`` error for libcurl's result `curlCode`.
    init(transferFailed message: String, curlCode: CURLcode) {
        code = .transferFailed
        self.message = message
        errno = nil
        remedy = nil
        httpStatus = nil
        self.curlCode = curlCode.rawValue
    }

    /// The same error with another message (more context), keeping its code and causes.
    func with(message: String) -> PkgError {
        var error = self
        error.message = message
        return error
    }

    /// The one-line message.
    public var description: String { message }

    /// Whether the origin said the resource is not there: HTTP 404 or 410, 403
    /// (what S3 answers for a missing key without list rights), or a missing file:// file.
    var isNotFound: Bool {
        if let httpStatus { return httpStatus == 403 || httpStatus == 404 || httpStatus == 410 }
        return curlCode == CURLE_FILE_COULDNT_READ_FILE.rawValue
    }
}
