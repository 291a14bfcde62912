/// pkgctl's exit statuses: sysexits.h values where one fits, so systemd names them
/// (`status=75/TEMPFAIL`). The README's "Exit status" section lists the same.
package enum ExitStatus {
    /// Done; for `update` also when there was nothing to do.
    package static let success: Int32 = 0
    /// The command failed, or (`update`) at least one package did; active versions stay.
    package static let failure: Int32 = 1
    /// `fleet watch` halted a release (revoked it).
    package static let halted: Int32 = 2
    /// `fleet watch` could not decide: its logs cannot be read or hold no report, or the
    /// release's step gave too little evidence for too long.
    package static let undecided: Int32 = 3
    /// Bad flags or arguments (swift-argument-parser's validation status, EX_USAGE).
    package static let usage: Int32 = 64
    /// Root was refused a store that belongs to another user (EX_NOPERM); `--force-owner` allows it.
    package static let noPermission: Int32 = 77
    /// Another pkgctl holds the store's lock and `--no-wait` was given (EX_TEMPFAIL).
    package static let lockBusy: Int32 = 75
    /// The config file or a `PKGCTL_*` setting cannot be used (EX_CONFIG).
    package static let config: Int32 = 78

    /// The section shared by the README, `pkgctl --help` and the man page.
    package static let discussion = """
        Exit status: 0 done (update: also when nothing changed); 1 failed (update: some package failed, \
        its active version kept); fleet watch: 2 halted a release, 3 could not decide; 64 bad usage; \
        75 the store is locked by another pkgctl (--no-wait); \
        77 root refused a store that belongs to another user (--force-owner); \
        78 a config file or PKGCTL_* setting cannot be used.
        """
}
