import PkgCore

extension PkgError {
    /// The message as pkgctl prints it: the library's account, then the option that
    /// gets past it when the error names a ``PkgError/Remedy``.
    package var commandLineMessage: String {
        guard let remedy else { return message }
        switch remedy {
        case .force: return message + " (pass --force)"
        case .signingKey: return message + " (pass --sign KEYFILE)"
        case .trustedKeys: return message + " (pass --trusted-key)"
        default: return message
        }
    }
}
