import FoundationEssentials
import CSystemShims
import Glibc

/// A command that decides whether a freshly switched-in version is healthy:
/// run by `/bin/sh -c` with `PKGCTL_PACKAGE`, `PKGCTL_VERSION` and
/// `PKGCTL_PATH` set, its output sent to stderr. Exit 0 within the timeout
/// confirms the version; anything else reverts it.
public struct HealthCheck: Sendable, Hashable {
    /// The shell command.
    public var command: String
    /// Seconds the command may run before it (and its process group) is killed.
    public var timeout: TimeInterval

    /// A check running `command` for at most `timeout` seconds.
    public init(command: String, timeout: TimeInterval = 30) {
        self.command = command
        self.timeout = timeout
    }

    /// Runs the check for one version; returns nil when it passed, otherwise why it failed.
    func failure(name: String, version: String, path: String) throws -> String? {
        var environment = ProcessInfo.processInfo.environment
        environment["PKGCTL_PACKAGE"] = name
        environment["PKGCTL_VERSION"] = version
        environment["PKGCTL_PATH"] = path
        let pid = try spawn(environment: environment)
        // Monotonic: a wall clock set by NTP mid-check must not stretch or cut the timeout.
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited < 0, errno != EINTR {
                let reason = String(cString: strerror(errno))
                kill(-pid, SIGKILL)
                throw PkgError(.healthCheckFailed, "cannot wait for the health check: \(reason)")
            }
            if ContinuousClock.now >= deadline {
                kill(-pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                return "health check timed out after \(Self.seconds(timeout))"
            }
            usleep(5_000)
        }
        let signal = status & 0x7f
        if signal != 0 { return "health check killed by signal \(signal)" }
        let code = (status >> 8) & 0xff
        return code == 0 ? nil : "health check exited \(code)"
    }

    /// Why a check failed, in a word, for outcome reports: `timeout`, `signal`, `exit` (the
    /// phrases ``failure(name:version:path:)`` writes), else `start` (it could not be run or waited for).
    static func cause(of message: String) -> String {
        if message.contains("health check timed out") { return "timeout" }
        if message.contains("health check killed by signal") { return "signal" }
        if message.contains("health check exited") { return "exit" }
        return "start"
    }

    /// Starts `/bin/sh -c command` in a process group of its own (so a timeout
    /// kills everything it started), stdin from /dev/null (a background group
    /// reading a terminal would be stopped), stdout redirected to stderr, and no
    /// other descriptor of this process inherited.
    private func spawn(environment: [String: String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        // Nothing else of the host: a descriptor another thread just opened without
        // O_CLOEXEC (a pipe, a socket) would otherwise live as long as the check and
        // everything it starts, keeping that pipe's reader from ever seeing its end.
        let closing = pkg_spawn_close_from(&actions, STDERR_FILENO + 1)
        guard closing == 0 else {
            throw PkgError(.healthCheckFailed, "cannot start the health check: \(String(cString: strerror(closing)))")
        }

        let arguments: [UnsafeMutablePointer<CChar>?] = [String]
            .init(["/bin/sh", "-c", command]).map { strdup($0) } + [nil]
        let variables: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            arguments.forEach { free($0) }
            variables.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, arguments, variables)
        guard result == 0 else {
            throw PkgError(.healthCheckFailed, "cannot start the health check: \(String(cString: strerror(result)))")
        }
        return pid
    }

    private static func seconds(_ interval: TimeInterval) -> String {
        DecimalText.tenths(interval, droppingZeroTenth: true) + " s"
    }
}
