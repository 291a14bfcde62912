import Foundation

/// This process's open descriptors and memory, read from /proc.
struct ProcessStats: CustomStringConvertible {
    let descriptors: Int
    let residentKiB: Int
    let peakResidentKiB: Int

    static func now() -> ProcessStats {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func kib(_ field: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return -1 }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
        }
        return ProcessStats(descriptors: descriptors, residentKiB: kib("VmRSS"), peakResidentKiB: kib("VmHWM"))
    }

    var description: String { "fds=\(descriptors) rss-kb=\(residentKiB) peak-rss-kb=\(peakResidentKiB)" }
}
