import FoundationEssentials
import Synchronization
import Glibc

/// The write-through overlay under `ROOT/cache`:
///
/// ```
/// ROOT/cache/HOST/PATH                     answers for hosts no package routes
/// ROOT/cache/NAME@VERSION/HOST/PATH        answers fetched while NAME VERSION was active
/// ROOT/cache/.tmp/                         files being written (renamed into place when complete)
/// ```
///
/// Keying routed entries by the active version makes them stale the moment a
/// new version is activated: they are simply never looked up again, and `gc`
/// removes them with their version. `@` appears in no
/// host or package name, so the two kinds of directory never collide.
///
/// Keys found absent are remembered (a request for a missing file would otherwise
/// pay a failed open here on every repeat): until this overlay publishes any entry,
/// and for at most ``absenceMilliseconds``, so an entry another process writes
/// under the same root is seen within that time.
final class Overlay: Sendable {
    let root: String
    let directoryDescriptor: Int32
    private let temporaryCounter = Atomic<Int>(0)
    private let absent = PosixMutex(Absences())

    /// How long a key found absent is believed absent without looking again.
    static let absenceMilliseconds: Int64 = 500
    /// Most absent keys remembered.
    static let absenceLimit = 4096

    private struct Absences {
        var keys = Set<String>()
        /// When `keys` began to be collected (coarse monotonic nanoseconds).
        var since: Int64 = 0
        /// Bumped by every published entry: an open that failed before it is not remembered after it.
        var generation = 0
    }

    init(root: String) throws {
        self.root = root
        try FileSystem.makeDirectories(root + "/.tmp")
        Self.removeAbandonedTemporaries(in: root + "/.tmp")
        let fd = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", root) }
        directoryDescriptor = fd
    }

    deinit { close(directoryDescriptor) }

    /// The overlay path (relative to the overlay root) for a request, or nil when
    /// the request is not cacheable by URL (a query string, or an unsafe host).
    static func key(host: String, path: String, query: Substring, match: RouteMatch?) -> String? {
        guard query.isEmpty, RequestPath.isSafeHost(host) else { return nil }
        if let match {
            let mount = match.route.mount
            return String(concatenating: StoreLayout.overlayDirectoryName(mount.name, mount.version)[...], "/", host[...],
                          match.route.prefix[...], "/", match.relativePath[...])
        }
        return path.utf8.last == UInt8(ascii: "/") ? String(concatenating: host[...], path[...], "index.html")
            : String(concatenating: host[...], path[...])
    }

    /// Opens the overlay file for `key`, refusing symlinks and escapes; nil without a look
    /// when `key` was found absent lately.
    func open(_ key: String) -> LocalFile? {
        open(rememberedAs: key) { key }
    }

    /// Opens the file at `relativePath()`, remembering its absence as `name` (cheaper to make
    /// than the path): nil without a look, and without making the path, when `name` was found
    /// absent lately.
    func open(rememberedAs name: String, relativePath: () -> String) -> LocalFile? {
        let now = coarseMonotonicNanoseconds()
        let generation: Int? = absent.withLock { absent in
            if now - absent.since > Self.absenceMilliseconds * 1_000_000 {
                absent.keys.removeAll(keepingCapacity: true)
                absent.since = now
            }
            return absent.keys.contains(name) ? nil : absent.generation
        }
        guard let generation else { return nil }
        if let file = LocalFile.open(under: directoryDescriptor, directory: root, relativePath: relativePath()) { return file }
        // Only a definite "not there" is remembered; EMFILE and the like may pass.
        guard errno == ENOENT || errno == ENOTDIR else { return nil }
        absent.withLock { absent in
            if absent.generation == generation, absent.keys.count < Self.absenceLimit { absent.keys.insert(name) }
        }
        return nil
    }

    /// An entry was renamed into place: forget every absence seen so far.
    func published() {
        absent.withLock { absent in
            absent.keys.removeAll()
            absent.generation += 1
        }
    }

    /// Removes `.tmp/w-PID-N` files of processes that no longer run (a killed server).
    private static func removeAbandonedTemporaries(in directory: String) {
        for name in (try? FileSystem.contents(of: directory)) ?? [] {
            let parts = name.split(separator: "-")
            guard parts.count == 3, parts[0] == "w", let pid = pid_t(parts[1]) else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { unlink(directory + "/" + name) }
        }
    }

    /// Starts writing an entry for `key`: a new temp file under `.tmp/`.
    func makeWriter(key: String) -> OverlayWriter? {
        let number = temporaryCounter.add(1, ordering: .relaxed).newValue
        let temporary = root + "/.tmp/w-\(getpid())-\(number)"
        let fd = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        return OverlayWriter(descriptor: fd, temporary: temporary, destination: root + "/" + key, overlay: self)
    }
}
