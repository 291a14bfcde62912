/// pkgctl's version, which both binaries print (`--version`) and `scripts/package` checks against
/// `packaging/debian/changelog`: one value, so the two cannot disagree.
package enum PkgctlVersion {
    package static let current = "0.1.0"
}
