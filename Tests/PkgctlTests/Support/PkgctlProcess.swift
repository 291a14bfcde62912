import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Runs the built `pkgctl` executable, which sits beside the test bundle.
struct PkgctlProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The folder of this build: the test bundle, `pkgctl`, `pkgctl-publisher` and the library.
    static let buildFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path

    static let executable = buildFolder + "/pkgctl"

    /// Starts pkgctl with `arguments`, through `launcher` (e.g. `["/usr/bin/faketime", "+40d"]`)
    /// when given, reading the file `stdin` when given; the caller waits or kills it. `executable`
    /// is another pkgctl to run (a previous release's, the uninstrumented build's).
    static func start(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = [],
                      stdin: String? = nil, executable: String = executable) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launcher.first ?? executable)
        process.arguments = launcher.isEmpty ? arguments : Array(launcher.dropFirst()) + [executable] + arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        process.environment = env
        let out = ProcessLaunch.pipe(), err = ProcessLaunch.pipe()
        process.standardOutput = out
        process.standardError = err
        if let stdin { process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: stdin)) }
        try ProcessLaunch.run(process)
        return (process, out, err)
    }

    /// Runs pkgctl to completion. Both pipes are drained at once (stderr on a thread of
    /// its own), so a child that fills one pipe's 64 KiB cannot block on it forever.
    static func run(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = [],
                    stdin: String? = nil, executable: String = executable) throws -> Result {
        let (process, out, err) = try start(arguments, environment: environment, launcher: launcher, stdin: stdin,
                                            executable: executable)
        let stderr = PipeReader(err)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderrText = stderr.text()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: stderrText)
    }

    /// Makes `DIRECTORY/NAME.key` and `NAME.pub` for each of `names` with `pkgctl keygen`.
    static func keygen(_ names: [String], in directory: String) throws {
        for name in names {
            let made = try run(["keygen", "--out", directory, "--name", name])
            try #require(made.status == 0, "keygen \(name): \(made.stderr)")
        }
    }

    /// The first line `pipe` carries within `timeout` (a server's banner).
    static func firstLine(of pipe: Pipe, timeout: TimeInterval) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var text = ""
        let handle = pipe.fileHandleForReading
        while !text.contains("\n"), Date() < deadline {
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, 100) > 0 {
                let data = handle.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
        }
        return try #require(text.split(separator: "\n").first.map(String.init), "pkgctl serve printed no banner")
    }
}
