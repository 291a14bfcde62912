import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Rollback that holds, health-checked activation, app-confirmed trials, and
/// re-published versions, with real zips and a real nginx origin.
@Suite struct ReleaseSafetyTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore
    var manifestURL: String { "file://" + originRoot + "/manifest.json" }

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
    }

    func updater(_ url: String? = nil, activation: Activation = .immediate) -> Updater {
        Updater(store: store, manifestURL: url ?? manifestURL,
                transfer: TransferOptions(connectTimeout: 2, stallTimeout: 2, maxAttempts: 2, retryBaseDelay: 0.05),
                activation: activation)
    }

    /// 1.0.0 then 1.1.0 installed; 1.1.0 active.
    private func installBoth() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    // MARK: - Rollback holds

    @Test func rollbackHoldsEvenWhenTheManifestFileChanges() throws {
        try installBoth()
        let origin = try NginxOrigin(root: originRoot)
        defer { origin.stop() }
        let url = origin.baseURL + "/manifest.json"
        #expect(try updater(url).run().packages.map(\.action) == [.unchanged])
        try store.locked { _ = try store.rollback("demo") }
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])

        // The same manifest rewritten with one more newline: a new ETag, the held version named.
        let path = originRoot + "/manifest.json"
        try FileSystem.writeAtomically(try #require(try FileSystem.read(path)) + [UInt8(ascii: "\n")], to: path)
        let report = try updater(url).run()
        #expect(report.manifest == .fetched)
        #expect(report.packages.map(\.action) == [.held])
        #expect(report.packages.first?.from == "1.0.0")
        #expect(report.succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")

        // unhold: the very next run installs it, although the manifest is unchanged (no 304 short cut).
        #expect(try store.locked { try store.unhold("demo") } == ["1.1.0"])
        let after = try updater(url).run()
        #expect(after.manifest == .fetched)
        #expect(after.packages.map(\.action) == [.upgraded])
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    @Test func aNewerVersionInstallsWhileAnOlderOneIsHeld() throws {
        try installBoth()
        try store.locked { _ = try store.rollback("demo") }
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.2.0", options: .init(routes: ["www.example.com/app"]))
        #expect(try updater().run().packages.map(\.action) == [.upgraded])
        #expect(store.activeVersion(of: "demo") == "1.2.0")
    }

    // MARK: - Health checks

    @Test func aFailingHealthCheckSwitchesBackAndHolds() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        let seen = temp.path + "/seen"
        let check = HealthCheck(command: "echo \"$PKGCTL_PACKAGE $PKGCTL_VERSION $PKGCTL_PATH $(readlink \"$PKGCTL_PATH/../current\")\" > \(seen); exit 3")
        let report = try updater(activation: .healthCheck(check)).run()
        let outcome = try #require(report.packages.first)
        #expect(outcome.action == .rolledBack)
        #expect(outcome.error == "demo 1.1.0: health check exited 3; switched back to 1.0.0 and held 1.1.0")
        #expect(!report.succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        #expect(try store.trial(of: "demo") == nil)
        let environment = String(decoding: try #require(try FileSystem.read(seen)), as: UTF8.self)
        #expect(environment == "demo 1.1.0 \(store.layout.versionDirectory("demo", "1.1.0")) 1.1.0\n",
                "the check ran with the new version already active")

        // The next run reports the hold and succeeds.
        let next = try updater(activation: .healthCheck(check)).run()
        #expect(next.packages.map(\.action) == [.held])
        #expect(next.succeeded)
    }

    @Test func aHealthCheckThatHangsIsKilledWithEverythingItStarted() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        let pidFile = temp.path + "/child.pid"
        let check = HealthCheck(command: "sleep 60 & echo $! > \(pidFile); wait", timeout: 0.5)
        let started = ContinuousClock.now
        let report = try updater(activation: .healthCheck(check)).run()
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(report.packages.first?.error == "demo 1.1.0: health check timed out after 0.5 s; switched back to 1.0.0 and held 1.1.0")
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        let pidText = String(decoding: try FileSystem.read(pidFile) ?? [], as: UTF8.self)
        let child = try #require(Int32(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(eventually { kill(child, 0) != 0 }, "the check's own child was killed too")
    }

    @Test func aPassingHealthCheckConfirms() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        let report = try updater(activation: .healthCheck(HealthCheck(command: "test -f \"$PKGCTL_PATH/index.html\""))).run()
        #expect(report.packages.map(\.action) == [.installed])
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.trial(of: "demo") == nil)
    }

    @Test func aHealthCheckInheritsNoDescriptorOfTheHost() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        // A pipe the host opened without O_CLOEXEC, as Foundation's Pipe() does: a check
        // that kept its write end would keep the host's reader from ever seeing the end.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        defer { ends.forEach { close($0) } }
        let pipeName = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(ends[1])")
        let listing = temp.path("fds")
        let check = HealthCheck(command: "for fd in /proc/$$/fd/*; do readlink \"$fd\" || true; done > '\(listing)'")
        #expect(try updater(activation: .healthCheck(check)).run().succeeded)
        let held = try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n")
        #expect(held.count >= 3 && !held.contains { $0 == pipeName }, "the check's shell held \(held), not \(pipeName)")
        #expect(held.count <= 4, "only stdin, stdout, stderr and the listing: \(held)")
    }

    @Test func aFailedFirstInstallLeavesNothingActive() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        let report = try updater(activation: .healthCheck(HealthCheck(command: "false"))).run()
        #expect(report.packages.first?.error == "demo 1.0.0: health check exited 1; no earlier version to switch back to, so none is active; held 1.0.0")
        #expect(store.activeVersion(of: "demo") == nil)
        #expect(!FileSystem.exists(store.layout.currentLink("demo")))
    }

    // MARK: - Trials confirmed by the app

    @Test func anAppConfirmsTheExactVersionOrItIsRevertedAtTheNextStart() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        try BundleFixtures.publishDemo(["1.1.0"], into: originRoot)
        #expect(try updater(activation: .awaitingConfirmation).run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.trial(of: "demo")?.previous == "1.0.0")

        // An update run in between does not revert an app's trial.
        #expect(try updater(activation: .awaitingConfirmation).run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        // A confirmation for another version does not count.
        #expect(try store.locked { try store.confirm("demo", version: "1.0.0") } == false)
        // The app restarts without having confirmed 1.1.0.
        let reverted = try store.locked { try store.revertUnconfirmedTrials() }
        #expect(reverted.map(\.version) == ["1.1.0"])
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])

        // Unheld and tried again, then confirmed: it stays.
        try store.locked { _ = try store.unhold("demo") }
        #expect(try updater(activation: .awaitingConfirmation).run().succeeded)
        #expect(try store.locked { try store.confirm("demo", version: "1.1.0") })
        #expect(try store.locked { try store.revertUnconfirmedTrials() }.isEmpty)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    @Test func aCrashBetweenTwoTrialsGoesBackToTheLastConfirmedVersion() throws {
        try installBoth()   // 1.1.0 active, confirmed
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.0.0"), name: "demo", version: "1.2.0", options: .init(routes: ["www.example.com/app"]))
        #expect(try updater(activation: .awaitingConfirmation).run().succeeded)   // 1.2.0 on trial
        // The next trial (1.3.0) was written, then the process died before switching to it.
        var next = try #require(try store.trial(of: "demo"))
        next.version = "1.3.0"
        try StateFile.save(next, to: store.layout.trialFile("demo"))
        let reverted = try store.locked { try store.revertUnconfirmedTrials() }
        #expect(reverted.count == 1)
        #expect(store.activeVersion(of: "demo") == "1.1.0", "1.2.0 was never confirmed")
        #expect(try store.heldVersions(of: "demo") == ["1.2.0"])
        #expect(try store.trial(of: "demo") == nil)
    }

    @Test func aCrashBeforeTheFirstSwitchDropsTheTrialOnly() throws {
        try installBoth()
        let trial = ActivationTrial(name: "demo", version: "1.0.0", previous: "1.1.0", confirmedBy: .healthCheck,
                                    startedAt: Date())
        try StateFile.save(trial, to: store.layout.trialFile("demo"))
        #expect(try store.locked { try store.revertUnconfirmedTrials() }.isEmpty)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.heldVersions(of: "demo").isEmpty)
        #expect(try store.trial(of: "demo") == nil)
    }

    @Test func gcKeepsTheVersionATrialWouldGoBackTo() throws {
        try installBoth()
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.0.0"), name: "demo", version: "1.2.0", options: .init(routes: ["www.example.com/app"]))
        var trial = updater(activation: .awaitingConfirmation)
        trial.keep = 1
        #expect(try trial.run().succeeded)
        #expect(Set(try store.retainedVersions(of: "demo").map(\.entry.version)) == ["1.1.0", "1.2.0"])
        try store.locked { _ = try store.revertUnconfirmedTrials() }
        #expect(store.activeVersion(of: "demo") == "1.1.0")
    }

    // MARK: - Re-published versions

    /// A version that failed its health check is held: it must not push the good
    /// fallback out of the `keep` versions gc leaves.
    @Test func aHeldBadVersionDoesNotCostAGoodFallback() throws {
        try installBoth()
        let source = temp.path + "/v2"
        try BundleFixtures.makeTree(at: source, files: 3, size: 100)
        try PublishingFolder(originRoot).pack(source: source, name: "demo", version: "2.0.0", options: .init(routes: ["www.example.com/app"]))
        let check = HealthCheck(command: "test \"$PKGCTL_VERSION\" != 2.0.0", timeout: 10)
        var failing = updater(activation: .healthCheck(check))
        failing.keep = 2
        let report = try failing.run()
        #expect(report.packages.map(\.action) == [.rolledBack])
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.heldVersions(of: "demo") == ["2.0.0"])
        #expect(report.removed.isEmpty, "1.0.0, the good fallback, stays: \(report.removed)")
        #expect(try store.retainedVersions(of: "demo").map(\.entry.version) == ["1.0.0", "1.1.0", "2.0.0"])
        // keep 1: the newest good version (the active 1.1.0) and the held one newer than it stay.
        try store.locked { _ = try store.collectGarbage(keep: 1) }
        #expect(try store.retainedVersions(of: "demo").map(\.entry.version) == ["1.1.0", "2.0.0"])
    }

    @Test func aRepublishedInactiveVersionSurvivesAFailedDownloadOfItsReplacement() throws {
        try installBoth()
        let original = try #require(try store.record(of: "demo", version: "1.0.0"))
        // 1.0.0 re-published with other content (pack refuses that; a publisher that lost its manifest,
        // or an earlier pkgctl, does not), but its zip cannot be fetched.
        try BundleFixtures.forgetPublishedReleases(in: originRoot)
        let republished = try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.0.0", options: .init(routes: ["www.example.com/app"]))
        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = "http://127.0.0.1:1/demo-1.0.0.zip" }
        let failed = try updater().run()
        #expect(failed.packages.first?.action == .failed)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.record(of: "demo", version: "1.0.0")?.entry.sha256 == original.entry.sha256)
        #expect(try store.verify("demo").allSatisfy(\.isIntact), "the rollback target is whole")

        try BundleFixtures.editManifest(in: originRoot) { $0.packages[0].url = republished.url }
        let report = try updater().run()
        #expect(report.packages.map(\.action) == [.downgraded])
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.record(of: "demo", version: "1.0.0")?.entry.sha256 != original.entry.sha256)
        #expect(try store.verify("demo").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty)
    }

    @Test func aRepublishedActiveVersionIsReportedAndKeptServing() throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater().run().succeeded)
        let installed = try #require(try store.record(of: "demo", version: "1.0.0"))
        try BundleFixtures.forgetPublishedReleases(in: originRoot)  // pack refuses a re-pack; an earlier pkgctl did not
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.1.0"), name: "demo", version: "1.0.0", options: .init(routes: ["www.example.com/app"]))
        let report = try updater().run()
        let outcome = try #require(report.packages.first)
        #expect(outcome.action == .failed)
        #expect(outcome.error?.hasPrefix("demo 1.0.0: re-published with another bundle (sha256 ") == true)
        #expect(outcome.error?.hasSuffix("the active version is kept, not replaced in place: publish the change as a new version") == true)
        #expect(try store.record(of: "demo", version: "1.0.0") == installed)
        let served = store.layout.versionDirectory("demo", "1.0.0") + "/index.html"
        #expect(FileManager.default.contentsEqual(atPath: served, andPath: BundleFixtures.demoSource("1.0.0") + "/index.html"))
        #expect(try store.verify("demo").allSatisfy(\.isIntact))
        #expect(try FileSystem.contents(of: store.layout.staging).isEmpty)
    }

    @Test func theSameVersionWrittenDifferentlyIsNotAnUpgrade() throws {
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.0.0"), name: "demo", version: "1.0", options: .init(routes: []))
        #expect(try updater().run().succeeded)
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource("1.0.0"), name: "demo", version: "1.0.0", options: .init(routes: []))
        #expect(try updater().run().packages.map(\.action) == [.republished])
    }
}
