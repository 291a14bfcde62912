import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// What ABI 0.2 adds, through the C host (`Tests/CHost/resolver_host.c`, modes `launch` and
/// `launch-report`): a C host's launches settle a trial by launches with no code of its own, and
/// `pkgctl_resolver_report_launch_problem()` adds the host's word. Each run of the host is one
/// app start: its launch ends when it destroys the resolver.
extension ResolverCABITests {
    @Test func aCHostsLaunchesRevertATrialAndItsReportCountsAsABadLaunch() throws {
        let host = try buildHost()
        try sandbox.install("demo", "1.1.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("<!doctype html><title>demo 1.1</title>".utf8),
            "js/app.js": Array("window.ok = true".utf8),
        ], activate: false)
        let store = sandbox.store
        try store.locked {
            try store.activateOnTrial("demo", version: "1.1.0", confirmedBy: .launches,
                                      rule: try LaunchTrialRule(confirmAfter: 5, revertAfter: 2))
        }
        let page = "app://www.example.com/app/index.html"

        // A script the release lacks, offline: a bad launch, not yet M of them.
        let first = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "launch", page,
                                       "app://www.example.com/app/js/missing.js"])
        #expect(first.status == 0 && first.stdout.hasPrefix(page + " status=200\n"), "\(first.stdout)\(first.stderr)")
        #expect(try store.launchTally(of: "demo", version: "1.1.0")?.badByReason == ["missingFile": 1])
        #expect(store.activeVersion(of: "demo") == "1.1.0")

        // Every file there, but the host reports a page error: the second bad launch reverts.
        let second = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "launch-report", page,
                                        "app://www.example.com/app/js/app.js", "Uncaught TypeError at app.js:1"])
        #expect(second.stdout.contains("report=1\n"), "\(second.stdout)\(second.stderr)")
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        let verdict = try #require(try store.launchTally(of: "demo", version: "1.1.0")?.verdict)
        #expect(verdict.decision == .reverted && verdict.problem?.reason == .host)
        #expect(verdict.problem?.detail == "Uncaught TypeError at app.js:1")

        // No trial by launches any more (1.0.0 is confirmed): the host's word changes nothing.
        let after = try runHost(host, [sandbox.root, "http://127.0.0.1:9", "launch-report", page, "late"])
        #expect(after.stdout.contains("report=0\n"), "\(after.stdout)\(after.stderr)")
    }
}
