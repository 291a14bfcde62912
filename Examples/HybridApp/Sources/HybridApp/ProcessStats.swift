import Foundation

/// This process's open descriptors and memory, read from /proc.
struct ProcessStats: CustomStringConvertible {
    let descriptors: Int
    /// Of those, the pipes (response bodies still open at one end or the other).
    let pipes: Int
    /// Of those, the sockets (origin connections, WebKit's IPC).
    let sockets: Int
    let residentKiB: Int
    let peakResidentKiB: Int

    static func now() -> ProcessStats {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let targets = names.map { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) ?? "" }
        let pipes = targets.filter { $0.hasPrefix("pipe:") }.count
        let sockets = targets.filter { $0.hasPrefix("socket:") }.count
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func kib(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return -1 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return ProcessStats(descriptors: names.count, pipes: pipes, sockets: sockets, residentKiB: kib("VmRSS"), peakResidentKiB: kib("VmHWM"))
    }

    var description: String { "fds=\(descriptors) pipes=\(pipes) sockets=\(sockets) rss-kb=\(residentKiB) peak-rss-kb=\(peakResidentKiB)" }
}
