import Foundation
import Glibc
import Testing

/// `pkgctl serve` as the unprivileged user the shipped unit runs it as (`User=pkgctl`): every
/// test but this one runs as root, where a socket option only root may set went unnoticed and
/// reset every connection of an unprivileged server.
@Suite struct ServeAsServiceUserTests {
    @Test(.enabled(if: geteuid() == 0, "needs root to start the server as another user"))
    func anUnprivilegedServerAnswers() throws {
        let temp = try TemporaryDirectory()
        let site = temp.path("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Data("<!doctype html><title>app</title>".utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        for path in [temp.path, site] { #expect(chmod(path, 0o755) == 0) }
        #expect(chmod(site + "/index.html", 0o644) == 0)

        let (server, out, err) = try PkgctlProcess.start(
            ["serve", "--source", site, "--port", "0", "--quiet"],
            launcher: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        let errors = PipeReader(err)
        defer { ProcessLaunch.stop(server) }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        let url = try #require(banner.split(separator: " ").first { $0.hasPrefix("http://") }, "\(banner) \(errors.text())")
        let page = try HTTPExchange.curl(String(url), ["-H", "Accept: text/html"])
        #expect(page.status == 200, "\(errors.text())")
        #expect(String(decoding: page.body, as: UTF8.self).contains("<title>app</title>"))
    }
}
