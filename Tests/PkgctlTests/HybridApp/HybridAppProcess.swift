import Foundation
import PkgCore

/// Runs one build of the example app (a real WebKitGTK window) and collects what it prints.
final class HybridAppProcess: @unchecked Sendable {
    /// What a finished run printed.
    struct Result {
        var status: Int32
        var stdout: String
        var log: [String]

        /// The `exit` line's numbers: `started`, `stopped`, `late`, `live`, and
        /// `fds`/`pipes`/`sockets`/`rss-kb` as start and end, `peak-rss-kb`, and
        /// `peak-held-kb` (body bytes the app queued for a full pipe) with `window-kb`.
        var exitLine: String { log.last { $0.hasPrefix("hybrid-app: exit ") } ?? "" }
        func count(_ name: String) -> Int? {
            exitLine.split(separator: " ").first { $0.hasPrefix(name + "=") }
                .flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        func range(_ name: String) -> (start: Int, end: Int)? {
            guard let field = exitLine.split(separator: " ").first(where: { $0.hasPrefix(name + "=") }) else { return nil }
            let parts = field.dropFirst(name.count + 1).split(separator: "-").compactMap { Int($0.trimmingCharacters(in: [">"])) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        /// WebKit, GLib and GTK warnings and criticals (`(process:pid): Domain-WARNING **`), and
        /// Chromium's errors and warnings (`[pid:tid:MMDD/HHMMSS.micros:ERROR:file.cc(line)] …`),
        /// but for one: Chromium's zygote, a process of its own, reports `write: Broken pipe` when
        /// it answers a browser process that has exited, so an app that quits while the zygote is
        /// still busy (a renderer being forked) may log it after its exit line (seen once in a
        /// CI run of `aFileThePackageLacksComesFromTheOrigin…`, Qt app, exit 0, page right).
        var engineWarnings: [String] {
            log.filter {
                ($0.contains("-CRITICAL **") || $0.contains("-WARNING **")
                    || $0.range(of: #"^\[[0-9:/.]+:(ERROR|WARNING|FATAL):"#, options: .regularExpression) != nil)
                    && !($0.contains(":ERROR:zygote_linux.cc(") && $0.hasSuffix("] write: Broken pipe (32)"))
            }
        }
    }

    let process = Process()
    private let output = PosixMutex<(stdout: Data, stderr: Data)>((Data(), Data()))
    private let readers = DispatchGroup()

    init(_ app: HybridApp, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: app.executable)
        process.arguments = arguments
        let out = ProcessLaunch.pipe(), err = ProcessLaunch.pipe()
        process.standardOutput = out
        process.standardError = err
        try ProcessLaunch.run(process)
        for (pipe, isStdout) in [(out, true), (err, false)] {
            readers.enter()
            Thread.detachNewThread { [self] in
                defer { readers.leave() }
                while true {
                    let data = pipe.fileHandleForReading.availableData
                    if data.isEmpty { return }
                    output.withLock { isStdout ? $0.stdout.append(data) : $0.stderr.append(data) }
                }
            }
        }
    }

    /// What the app has printed on stdout so far.
    var stdout: String { output.withLock { String(decoding: $0.stdout, as: UTF8.self) } }

    /// Waits (bounded) for the app to exit; stops it after `seconds` (SIGKILL if SIGTERM is not enough).
    func finish(seconds: Double = 120) -> Result {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        ProcessLaunch.stop(process, grace: 10)
        _ = readers.wait(timeout: .now() + 10)
        return output.withLock {
            Result(status: process.terminationStatus, stdout: String(decoding: $0.stdout, as: UTF8.self),
                   log: String(decoding: $0.stderr, as: UTF8.self).split(separator: "\n").map(String.init))
        }
    }

    /// Runs `app` to its end. A run GTK could not even start, because the X server (Xvfb, shared by
    /// the whole suite on a loaded 2-core machine) did not take its connection, is tried once more:
    /// that says nothing of the app (seen once in CI: `cannot open display: :99` while every other
    /// app of the suite opened it).
    static func run(_ app: HybridApp, _ arguments: [String], seconds: Double = 120) throws -> Result {
        let result = try HybridAppProcess(app, arguments).finish(seconds: seconds)
        guard result.status != 0, result.stdout.isEmpty, result.log.contains(where: { $0.contains("cannot open display") })
        else { return result }
        Thread.sleep(forTimeInterval: 1)
        return try HybridAppProcess(app, arguments).finish(seconds: seconds)
    }
}
