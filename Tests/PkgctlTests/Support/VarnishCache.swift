import Foundation

/// A real Varnish Cache in front of an origin on 127.0.0.1, private to one test, standing in
/// for a CDN's edge: what it keeps, for how long, and what it passes on is what an origin's
/// Cache-Control gets from a shared cache.
///
/// `varnishd -F` (the manager in the foreground; it forks one cache child) listens on a free
/// port of 127.0.0.1, started by a `/bin/sh` that waits for it and passes SIGTERM on (see
/// ``wrapper``), with its working directory (`-n`: its shared-memory log and counters,
/// the compiled VCL) and the VCL in a temporary directory that goes away with it; the log is
/// kept small (`vsl_space`) and the thread pool too, so a test run leaves nothing behind.
/// It behaves as a CDN does by default:
/// - A response without Cache-Control or Expires is kept for 24 h (`-t 86400`; CloudFront's
///   default TTL). Varnish takes `s-maxage`, else `max-age`, else Expires, less `Age`.
/// - `no-store`, `no-cache` and `private` make it fetch from the origin every time
///   (builtin.vcl's hit-for-miss); `immutable` and `stale-if-error` are not read.
/// - No grace (`default_grace=0`): past its TTL an object is fetched again before it is
///   served, not served stale while it is; it is kept an hour more (`default_keep`) so
///   that fetch is a conditional request (If-None-Match / If-Modified-Since) the origin
///   can answer with a 304.
/// - The cache key is the Host and the whole URL, query string included (Varnish's
///   default `vcl_hash`).
/// - `…/report/v1` (outcome reports) is passed to the origin every time, as a CDN's cache
///   behavior with caching disabled does, so every report reaches the origin's log.
/// Each answer has `X-Varnish` (one id on a miss, two on a hit) and `Age`.
///
/// ```swift
/// let origin = try NginxOrigin(root: root.path, accessLog: true, originConfig: true)
/// let cdn = try VarnishCache(originPort: origin.port)
/// defer { cdn.stop(); origin.stop() }
/// let answer = try HTTPExchange.curl(cdn.baseURL + "/manifest.json")
/// ```
final class VarnishCache {
    /// "http://127.0.0.1:PORT", no trailing slash.
    let baseURL: String
    /// The port varnishd listens on.
    let port: UInt16

    private let directory: TemporaryDirectory
    private let process: Process
    /// varnishd's working directory (its `-n`): `varnishadm -n DIR` finds this instance's
    /// management port and secret there.
    var workDirectory: String { directory.path("work") }

    /// Starts varnishd in front of `127.0.0.1:originPort`; returns once it accepts connections.
    init(originPort: UInt16) throws {
        let directory = try TemporaryDirectory(prefix: "pkgctl-varnish")
        let vcl = directory.path("cdn.vcl")
        try Data(Self.vcl(originPort: originPort).utf8).write(to: URL(fileURLWithPath: vcl))
        let output = directory.path("varnishd.log")

        var lastError = "varnishd did not start"
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", Self.wrapper, "varnishd", "-F", "-a", "127.0.0.1:\(port)", "-f", vcl, "-n", directory.path("work"),
                // No privilege separation: the temporary directory is this user's alone.
                "-j", "none",
                "-s", "malloc,32m", "-t", "86400",
                "-p", "default_grace=0", "-p", "default_keep=3600",
                "-p", "thread_pools=1", "-p", "thread_pool_min=5", "-p", "thread_pool_max=50",
                "-p", "vsl_space=1M",
            ]
            process.standardInput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardError = process.standardOutput
            try NginxOrigin.launch(process)

            // The manager compiles the VCL (with cc) and starts the child: seconds, not ms.
            if Self.waitUntilReady(process, port: port) {
                self.baseURL = "http://127.0.0.1:\(port)"
                self.port = port
                self.directory = directory
                self.process = process
                return
            }
            Self.stop(process)
            lastError = (try? String(contentsOfFile: output, encoding: .utf8)) ?? lastError
            guard lastError.contains("Address already in use") || lastError.contains("Could not get socket") else { break }
        }
        throw TestSupportError("varnishd failed to start: \(lastError)")
    }

    deinit {
        stop()
    }

    /// Stops varnishd and its cache child: SIGTERM to the wrapper, which passes it to the
    /// manager (which stops the child) and waits; SIGKILL after 5 s, then SIGKILL to any of
    /// them still running. Idempotent.
    func stop() {
        Self.stop(process)
    }

    /// What varnishd printed (the manager's log: child started, VCL errors).
    func output() -> String {
        (try? String(contentsOfFile: directory.path("varnishd.log"), encoding: .utf8)) ?? ""
    }

    // MARK: - Private

    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        // The descendants are known only while their parents live (they are re-parented after).
        let descendants = descendants(of: process.processIdentifier)
        ProcessLaunch.stop(process)
        for pid in descendants where isAlive(pid) {
            kill(pid, SIGKILL)
        }
    }

    /// Runs `varnishd "$@"` as a child of the shell and waits for it; SIGTERM or SIGINT to the
    /// shell is passed on to varnishd, and the shell exits once varnishd has.
    ///
    /// Not `exec`: varnishd closes every descriptor it inherits, and Foundation's `Process`
    /// takes the close of the one it gives each child for the child's exit, then waits for
    /// it with a blocking `waitpid` on the queue that reaps every child of the test process,
    /// so no other child (curl, nginx) would be reaped until varnishd ended. The shell keeps
    /// that descriptor open for as long as it runs.
    static let wrapper = """
        /usr/sbin/varnishd "$@" &
        pid=$!
        trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid"; exit 0' TERM INT
        wait "$pid"
        """

    private static func waitUntilReady(_ process: Process, port: UInt16) -> Bool {
        for _ in 0..<1000 {  // 20 s at most
            if !process.isRunning { return false }
            if Loopback.accepts(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    /// The pids of `ancestor`'s children, their children, and so on.
    private static func descendants(of ancestor: pid_t) -> [pid_t] {
        var found: [pid_t] = [], parents = [ancestor]
        while let parent = parents.popLast() {
            let children = childProcesses(of: parent)
            found += children
            parents += children
        }
        return found
    }

    /// The pids whose parent is `parent`, from /proc/PID/stat ("PID (COMM) STATE PPID …").
    private static func childProcesses(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                  let handle = FileHandle(forReadingAtPath: "/proc/\(entry)/stat") else { return nil }
            defer { try? handle.close() }
            let stat = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            // The command name may hold spaces and parentheses: read after the last ')'.
            guard let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent ? pid : nil
        }
    }

    /// Whether `pid` is still a process that has not exited (a zombie has).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return false }
        defer { try? handle.close() }
        let stat = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    private static func vcl(originPort: UInt16) -> String {
        """
        vcl 4.1;

        backend origin {
            .host = "127.0.0.1";
            .port = "\(originPort)";
        }

        sub vcl_recv {
            # Outcome reports are counted from the origin's access log: never answered here.
            if (req.url ~ "/report/v1(\\?|$)") {
                return (pass);
            }
            # Otherwise builtin.vcl: GET and HEAD are looked up, keyed on Host and URL.
        }

        """
    }
}
