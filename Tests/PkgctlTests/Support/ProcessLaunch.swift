import Foundation

/// Every child process the tests start goes through one lock. Foundation's `Process.run()`
/// on Linux is not safe to call from several threads at once: a child started at the same
/// moment as another can inherit the descriptors Foundation uses to notice the other's
/// exit, and its reaper thread then waits on the wrong process (seen under TSan: a blocking
/// `waitpid` on a live nginx while a `sha256sum` that had exited was never reaped, and the
/// suite hung). Parallel suites start children all the time; one at a time, the window is gone.
enum ProcessLaunch {
    private static let lock = NSLock()

    /// Starts `process` while no other test starts one.
    static func run(_ process: Process) throws {
        try lock.withLock { try process.run() }
    }
}
