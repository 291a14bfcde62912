import Foundation
import Synchronization
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
        #expect(first.status == 0 && first.stdout.hasPrefix(page + " status=200 "), "\(first.stdout)\(first.stderr)")
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

extension ResolverCABITests {
    /// Two app processes launching a release on trial while `pkgctl update` runs again and again
    /// on the same store: every launch before the verdict is counted once (the tally adds up under
    /// its lock), the revert happens once, under the store's lock, and the store stays whole
    /// (`pkgctl verify`). Under TSan (`scripts/test --sanitize thread`) the hosts and pkgctl are
    /// instrumented, and any report fails the run.
    @Test func twoAppProcessesAndUpdatesSharingAStoreSettleTheTrialOnce() throws {
        let host = try buildHost()
        let origin = temp.path("shared-origin"), root = temp.path("shared-store")
        let update = ["update", "--root", root, "--manifest", "file://" + origin + "/manifest.json", "--no-report",
                      "--quiet", "--confirm-after-launches", "1000", "--revert-after-bad-launches", "12"]
        try BundleFixtures.packDemo("1.0.0", into: origin)
        #expect(try PkgctlProcess.run(update).status == 0)
        try PackageStore(root: root).locked { _ = try PackageStore(root: root).confirm("demo", version: "1.0.0") }
        try BundleFixtures.packDemo("1.1.0", into: origin)
        #expect(try PkgctlProcess.run(update).status == 0)
        let store = PackageStore(root: root)
        #expect(try store.trial(of: "demo")?.version == "1.1.0")

        let page = "app://www.example.com/app/index.html", missing = "app://www.example.com/app/js/missing.js"
        let launchesPerApp = Sanitizer.isActive ? 8 : 10
        let failures = Mutex<[String]>([])
        // Which release answered each launch: the two pages differ in size.
        let trialPage = " status=200 bytes=\(try Data(contentsOf: URL(fileURLWithPath: BundleFixtures.demoSource("1.1.0") + "/index.html")).count)\n"
        let launchesOfTheTrial = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            do {
                if worker == 2 {
                    for _ in 0..<4 {
                        let run = try PkgctlProcess.run(update)
                        if run.status != 0 { failures.withLock { $0.append("update: \(run.stderr)") } }
                    }
                    return
                }
                for _ in 0..<launchesPerApp {
                    let run = try runHost(host, [root, "http://127.0.0.1:9", "launch", page, missing])
                    if run.status != 0 { failures.withLock { $0.append("app \(worker): \(run.stderr)") } }
                    if run.stdout.contains(trialPage) { launchesOfTheTrial.withLock { $0 += 1 } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        // A launch recorded while an update held the lock is settled by the next update or launch.
        #expect(try PkgctlProcess.run(update).status == 0)
        let tally = try #require(try store.launchTally(of: "demo", version: "1.1.0"))
        // At least M; more when an update held the store's lock as the M-th launch ended, so that the
        // launches after it were still served by 1.1.0 and counted until the next settling; never a
        // launch counted twice, nor one of 1.0.0.
        let served = launchesOfTheTrial.withLock { $0 }
        #expect(tally.bad >= 12 && tally.bad <= served && tally.clean == 0,
                "counted until the verdict, each once: \(tally), \(served) launches served by 1.1.0")
        #expect(tally.verdict?.decision == .reverted)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        let verify = try PkgctlProcess.run(["verify", "--root", root])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: root + "/state/launches/demo")
        #expect(left.sorted() == ["1.1.0.json"], "no temporary file left: \(left)")
    }
}
