import FoundationEssentials
import Glibc
import Synchronization

/// The store directory a command works on and the setting that chose it, so that every
/// error about the store can say where its path came from (a config file the user did
/// not think of, `PKGCTL_ROOT`, or the default).
package struct StoreRoot: Sendable {
    /// The store directory.
    package let path: String
    /// `--root`, `PKGCTL_ROOT`, the config file's path; nil for the default.
    package let source: String?

    package init(path: String, source: String?) {
        self.path = path
        self.source = source
    }

    /// "store root /var/lib/pkgctl (from /etc/pkgctl/config.json)".
    package var description: String {
        "store root \(path) (" + (source.map { "from \($0)" } ?? "the default; --root, PKGCTL_ROOT or a config file's root sets another") + ")"
    }

    private static let current = Mutex<StoreRoot?>(nil)

    /// Makes `root` the one ``annotated(_:)`` names.
    package static func record(_ root: StoreRoot) {
        current.withLock { $0 = root }
    }

    /// `line` with, when it names the store's path and the path was not given with `--root`
    /// on this command line, where the path came from.
    package static func annotated(_ line: String) -> String {
        guard let root = current.withLock({ $0 }), root.source != "--root", line.contains(root.path) else { return line }
        return line + " [" + root.description + "]"
    }

    /// Refuses, unless `force`, a store that exists and belongs to another user while this
    /// runs as root: the files root writes there (versions, state, the lock) would leave the
    /// store's owner, usually the service's user, unable to update it ("Permission denied").
    package func checkOwner(force: Bool) throws {
        var info = stat()
        guard !force, geteuid() == 0, stat(path, &info) == 0, info.st_uid != 0 else { return }
        let owner = getpwuid(info.st_uid).map { String(cString: $0.pointee.pw_name) }
        let named = owner.map { "\($0) (uid \(info.st_uid))" } ?? "uid \(info.st_uid)"
        let runAs = owner.map { "run it as that user (sudo -u \($0) pkgctl …)" } ?? "run it as that user"
        throw ConfigError("\(description) belongs to \(named), and this runs as root: files written now would leave "
                          + "that user unable to update the store; \(runAs), or pass --force-owner",
                          status: ExitStatus.noPermission)
    }
}
