extension ManifestEntry {
    /// Refuses a `spaFallback` that is not a file of the folder `source` a bundle is packed from
    /// (`pkgctl pack`) or previewed from (`pkgctl serve --source`): served for every deep link, a
    /// missing one would answer them all 404. `holdsFile` says whether `source` has a regular file
    /// at a relative path. Both commands refuse it in the same words:
    /// `spaFallback 'index.htm' is not a file of dist`.
    package static func checkSpaFallback(_ spaFallback: String?, isAFileOf source: String,
                                 holdsFile: (String) -> Bool) throws(PkgError) {
        guard let spaFallback, !holdsFile(spaFallback) else { return }
        throw PkgError(.invalidArgument, "spaFallback '\(spaFallback.escapedForMessage)' is not a file of \(source)")
    }
}
