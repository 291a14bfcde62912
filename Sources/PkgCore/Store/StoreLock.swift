import Glibc

/// A `flock(2)` on `ROOT/lock`, held while a command changes the store, so two updates
/// never interleave (and, shared or exclusive, on a publishing folder itself: see
/// `PublishingFolder`). Released when the value is dropped or the process dies.
public final class StoreLock: Sendable {
    private let descriptor: Int32

    /// Takes the store's lock. When another process holds it: waits, after calling
    /// `onWait` once, if `wait` is true; otherwise throws ``PkgError/Code/locked``.
    public convenience init(layout: StoreLayout, wait: Bool = true, onWait: (String) -> Void = { _ in }) throws {
        try FileSystem.makeDirectories(layout.root)
        try self.init(path: layout.lockFile, wait: wait, onWait: onWait)
    }

    /// Takes the lock on the file at `path` (created when missing), as ``init(layout:wait:onWait:)`` does.
    public convenience init(path: String, wait: Bool = true, onWait: (String) -> Void = { _ in }) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        try self.init(locking: fd, path: path, wait: wait, onWait: onWait)
    }

    /// Takes the lock on the directory `path` itself, adding no file to it (a folder nginx serves);
    /// `shared` lets other shared holders in and keeps exclusive ones out.
    public convenience init(directory path: String, shared: Bool = false, wait: Bool = true,
                            onWait: (String) -> Void = { _ in }) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw fileSystemError("open", path) }
        try self.init(locking: fd, path: path, operation: shared ? LOCK_SH : LOCK_EX, wait: wait, onWait: onWait)
    }

    /// Locks the open descriptor `fd` of `path` with `operation` (`LOCK_EX` or `LOCK_SH`), and
    /// owns it (closed on failure too).
    private init(locking fd: Int32, path: String, operation: Int32 = LOCK_EX, wait: Bool,
                 onWait: (String) -> Void) throws {
        if flock(fd, operation | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let error = fileSystemError("flock", path)
                close(fd)
                throw error
            }
            guard wait else {
                close(fd)
                throw PkgError(.locked, "\(path) is held by another pkgctl; try again when it finishes")
            }
            onWait("waiting for another pkgctl to release \(path)")
            if retryingOnInterrupt({ flock(fd, operation) }) != 0 {
                let error = fileSystemError("flock", path)
                close(fd)
                throw error
            }
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }
}
