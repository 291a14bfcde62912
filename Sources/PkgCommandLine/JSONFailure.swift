/// What `--json` prints on stdout when a command fails as a whole (the one-line
/// message also goes to stderr): `{"error": "...", "errorCode": "transferFailed"}`.
package struct JSONFailure: Encodable {
    /// The one-line message, as on stderr without the `pkgctl: ` prefix.
    package var error: String
    /// The ``PkgError/Code`` name, or ``configurationCode`` for a bad setting.
    package var errorCode: String

    /// The code of a setting or config file that cannot be used (exit 78).
    package static let configurationCode = "invalidConfiguration"
}
