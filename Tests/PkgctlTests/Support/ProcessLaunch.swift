import Foundation

/// Every child process the tests start, and every pipe or terminal they hand one, goes
/// through one lock.
///
/// Foundation's `Process.run()` on Linux makes the child close every descriptor up to the
/// highest one open *when it looks*; `ProcessLaunch.pipe()` and `openpty` make descriptors without
/// `O_CLOEXEC`. A pipe another test opens between that look and the spawn is inherited:
/// a long-lived child (an nginx, a server) then holds the other test's write end, whose
/// reader never sees its end of file, and the suite hangs. Parallel suites start children
/// all the time; with the descriptors made and the children started one at a time, under
/// this lock, no child can inherit what another test opened.
enum ProcessLaunch {
    private static let lock = NSLock()

    /// Starts `process` while no other test starts one or makes a pipe.
    static func run(_ process: Process) throws {
        try lock.withLock { try process.run() }
    }

    /// A pipe for a child's standard stream, made while no child is being started.
    static func pipe() -> Pipe {
        lock.withLock { Pipe() }
    }

    /// A pseudo-terminal (primary, secondary), made while no child is being started.
    static func terminal() -> (primary: Int32, secondary: Int32)? {
        lock.withLock {
            var primary: Int32 = -1, secondary: Int32 = -1
            return openpty(&primary, &secondary, nil, nil, nil) == 0 ? (primary, secondary) : nil
        }
    }

    /// Stops `process`: SIGTERM, then SIGKILL if it still runs after `grace` seconds.
    static func stop(_ process: Process, grace: Double = 5) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(grace)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
