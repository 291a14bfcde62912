import Foundation

/// Runs a tool to completion, its output in files (no pipe to fill).
enum PackagingCommand {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var all: String { stdout + stderr }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let scratch = try TemporaryDirectory(prefix: "pkgctl-command")
        _ = FileManager.default.createFile(atPath: scratch.path("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.path("err"), contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("out")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("err")))
        try ProcessLaunch.run(process)
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: try String(contentsOfFile: scratch.path("out"), encoding: .utf8),
                      stderr: try String(contentsOfFile: scratch.path("err"), encoding: .utf8))
    }

    /// Runs it and fails unless it exits 0; returns its stdout.
    @discardableResult
    static func require(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let result = try run(executable, arguments, environment: environment)
        guard result.status == 0 else {
            throw TestSupportError("\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.all)")
        }
        return result.stdout
    }
}
