import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl serve` over a store that serves nothing it will be asked says so in one line on
/// stderr as it starts, and still starts: an update may install what is missing.
@Suite struct ServeStartNoticeTests {
    let temp: TemporaryDirectory
    let root: String

    init() throws {
        temp = try TemporaryDirectory()
        root = temp.path("store")
    }

    /// Starts `pkgctl serve --root root --port 0 --quiet ARGUMENTS`, checks that it listens, stops it,
    /// and returns what it wrote on stderr until it was stopped.
    private func serveErrors(_ arguments: [String]) throws -> String {
        let (server, out, err) = try PkgctlProcess.start(["serve", "--root", root, "--port", "0", "--quiet"] + arguments)
        let errors = PipeReader(err)
        defer { ProcessLaunch.stop(server) }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        #expect(banner.hasPrefix("serving \(root) on http://"), "\(banner)")
        ProcessLaunch.stop(server)
        return errors.text()
    }

    private func installDemo() throws {
        let origin = temp.path("origin")
        _ = try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        let updated = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://" + origin + "/manifest.json"])
        try #require(updated.status == 0, "\(updated.stderr)")
    }

    @Test func anEmptyStoreIsNamedAtStart() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(try serveErrors(["--offline"]) == "pkgctl: the store \(root) has no installed package; "
                + "every request will be answered 404 (run pkgctl update first)\n")
        #expect(try serveErrors([]) == "pkgctl: the store \(root) has no installed package; "
                + "every request for this server's own address is answered 503, others go to their origin "
                + "(run pkgctl update first)\n")
    }

    /// Starts `pkgctl serve` (not quiet about its start notice), returns its base URL and the notice.
    private func serving(_ arguments: [String], _ work: (String) throws -> Void) throws -> String {
        let (server, out, err) = try PkgctlProcess.start(["serve", "--root", root, "--port", "0", "--quiet"] + arguments)
        let errors = PipeReader(err)
        defer { ProcessLaunch.stop(server) }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        let base = try #require(banner.firstMatch(of: #/http://\S+/#).map { String($0.0) }, "\(banner)")
        try work(base.hasSuffix("/") ? String(base.dropLast()) : base)
        ProcessLaunch.stop(server)
        return errors.text()
    }

    @Test func anEmptyStoreAnswers503AtOnceSayingWhatTheLogSays() throws {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var answer: HTTPExchange.Response?
        var took = 0.0
        let notice = try serving([]) { base in
            let started = Date()
            answer = try HTTPExchange.curl(base + "/app/")
            took = Date().timeIntervalSince(started)
        }
        let response = try #require(answer)
        // Before: a fetch from https:// of its own address, 502 after 10 s (SSL: wrong version number).
        #expect(response.status == 503 && took < 5, "\(response.status) after \(took) s")
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("the store \(root) has no installed package") && notice.contains("the store \(root) has no installed package"),
                "\(body)")
        #expect(body.contains("run pkgctl update first"))
    }

    @Test func aDefaultHostNoRouteMatchesIsNamedWithTheRoutesAtStart() throws {
        try installDemo()
        #expect(try serveErrors(["--offline", "--default-host", "shop.example.com"])
                == "pkgctl: --default-host 'shop.example.com' matches no route (routes: www.example.com/app); every "
                + "/PATH request will be answered 404 until an update installs a package routed for it\n")
        // A host with its port is routed as the host; the only package's host is the default.
        #expect(try serveErrors(["--offline", "--default-host", "www.example.com:8443"]) == "")
        #expect(try serveErrors(["--offline"]) == "")
    }

    @Test func aTakenPortIsOneLineInTheUsersWords() throws {
        try installDemo()
        let (first, out, _) = try PkgctlProcess.start(["serve", "--root", root, "--port", "0", "--quiet", "--offline"])
        defer { ProcessLaunch.stop(first) }
        let banner = try PkgctlProcess.firstLine(of: out, timeout: 20)
        let port = try #require(banner.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(banner)")
        let second = try PkgctlProcess.run(["serve", "--root", root, "--port", String(port), "--quiet", "--offline"])
        #expect(second.status == 1)
        #expect(second.stderr == "pkgctl: cannot listen on 127.0.0.1:\(port): another program listens there; stop it, "
                + "or choose another port (--port)\n", "\(second.stderr)")
    }
}
