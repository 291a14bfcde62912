import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl serve` under slow clients of a large origin file: flow control holds
/// the origin back, so the server's memory stays bounded and every client gets
/// every byte. Runs pkgctl as its own process to measure its RSS alone: this build's (under a
/// sanitizer, for its reports) and the uninstrumented one (``UninstrumentedBuild``, for the RSS).
@Suite(.serialized, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "needs curl"))
struct SlowClientTests {
    static let clients = 20
    static let size = 32 << 20
    /// Each client's read rate: 32 MiB take about 8 s.
    static let rate = "4M"

    /// The servers to run: one when this build is the uninstrumented one.
    static let servers = Array(Set([PkgctlProcess.executable, UninstrumentedBuild.pkgctl].compactMap { $0 })).sorted()

    @Test(arguments: servers) func twentySlowClientsOfALargeOriginFileKeepTheServerSmall(executable: String) throws {
        let temp = try TemporaryDirectory()
        let site = try TemporaryDirectory(prefix: "pkgctl-site")
        let content = (0..<Self.size).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        _ = try site.write(content, to: "large.bin")
        let expected = SHA256.hash(data: content).hexString
        let origin = try NginxOrigin(root: site.path)
        let (server, out, _) = try PkgctlProcess.start([
            "serve", "--root", try temp.makeDirectory("store"), "--port", "0", "--default-host", "www.example.com",
            "--upstream", origin.baseURL, "--quiet",
        ], executable: executable)
        defer { if server.isRunning { server.terminate() } }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        // No package serves the host: the banner's URL is the server's root.
        let base = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://") }).description
        let target = base + "large.bin"
        // Warm up (threads, TLS-free origin connection, allocator) before the baseline.
        let warm = try HTTPExchange.curl(target, ["-r", "0-1023"])
        #expect(warm.status == 206)
        let baseline = try #require(Self.residentBytes(of: server.processIdentifier))

        var clients: [Process] = []
        for index in 0..<Self.clients {
            let client = Process()
            client.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            client.arguments = ["-s", "-f", "--limit-rate", Self.rate, "-o", temp.path + "/client-\(index)", target]
            try ProcessLaunch.run(client)
            clients.append(client)
        }
        var peak = baseline
        for _ in 0..<600 where clients.contains(where: \.isRunning) {  // at most 60 s
            peak = max(peak, Self.residentBytes(of: server.processIdentifier) ?? 0)
            Thread.sleep(forTimeInterval: 0.1)
        }
        for client in clients { if client.isRunning { client.terminate() }; client.waitUntilExit() }
        for (index, client) in clients.enumerated() {
            #expect(client.terminationStatus == 0, "client \(index) failed")
            let data = try Data(contentsOf: URL(fileURLWithPath: temp.path + "/client-\(index)"))
            #expect(SHA256.hash(data: data).hexString == expected, "client \(index) got \(data.count) wrong bytes")
        }
        // An instrumented server's RSS is the sanitizer's (ASan keeps freed blocks in its
        // quarantine, TSan keeps shadow memory): there only the bytes are checked.
        if executable != UninstrumentedBuild.pkgctl {
            print("\(executable): the bytes were checked; the RSS bounds are the uninstrumented build's")
        } else {
            let grew = peak - baseline
            // Unpaced, the server would hold what the clients had not read yet: up to 20 × 32 MiB.
            #expect(grew < 64 << 20, "RSS grew \(grew >> 20) MB under \(Self.clients) slow clients")
            let settled = eventually(seconds: 10) {
                (Self.residentBytes(of: server.processIdentifier) ?? .max) < baseline + (32 << 20)
            }
            #expect(settled, "RSS stayed at \((Self.residentBytes(of: server.processIdentifier) ?? 0) >> 20) MB, from \(baseline >> 20)")
        }
        kill(server.processIdentifier, SIGINT)
        server.waitUntilExit()
    }

    /// VmRSS of `pid` in bytes.
    static func residentBytes(of pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }
}
