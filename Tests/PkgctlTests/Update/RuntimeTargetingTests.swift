import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Releases gated on the host app they fit, through the library against nginx with signed
/// manifests made by the test's keys: one package with a release per runtime range, devices
/// on either runtime installing only theirs, a host upgrade switching before anything else,
/// and an active version no release fits any more taken out of service.
@Suite struct RuntimeTargetingTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let signing: SigningFixtures

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = try temp.makeDirectory("origin")
        signing = SigningFixtures(in: temp.path)
        try signing.makeKey("release")
    }

    func publish(_ version: String, for range: String?, from source: String = "1.0.0", rollout: Double? = nil,
                 critical: Bool = false) throws {
        try PublishingFolder(originRoot).pack(
            source: BundleFixtures.demoSource(source), name: "demo", version: version, options: .init(routes: ["www.example.com/app"],
            rolloutPercent: rollout, deltaFrom: 0, critical: critical, runtime: range.flatMap(RuntimeRange.init)),
            signer: try signing.signer("release"))
    }

    func updater(_ origin: NginxOrigin, _ store: PackageStore, runtime: String?, windows: [String] = [],
                 deviceID: String = "device-1") throws -> Updater {
        Updater(store: store, manifestURL: origin.baseURL + "/manifest.json", keep: 5, trust: try signing.policy("release"),
                clock: { ActivationWindowTests.local(1, 0) }, deviceID: deviceID, activationWindows: windows.compactMap(ActivationWindow.init),
                runtime: try runtime.map { try #require(RuntimeVersion($0)) })
    }

    func zipsFetched(_ origin: NginxOrigin, after count: Int) -> [String] {
        origin.settledAccessLog().dropFirst(count).map { String($0.split(separator: " ")[0]) }.filter { $0.hasSuffix(".zip") }
    }

    @Test func devicesOnTwoRuntimesInstallOnlyTheirReleaseFromOneSignedManifest() throws {
        try publish("2.5.0", for: "2.x")
        try publish("3.0.0", for: ">=3.0.0 <4", from: "1.1.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        let published = try #require(try PublishedManifest.read(originRoot + "/manifest.json"))
        #expect(published.isSigned && published.manifest.schemaVersion == 3)
        #expect(published.manifest.packages.map { "\($0.version) \($0.runtime ?? "*")" } == ["3.0.0 >=3.0.0 <4", "2.5.0 2.x"])

        for (runtime, expected) in [("2.4.1", "2.5.0"), ("3.2.0", "3.0.0"), (nil, "3.0.0")] as [(String?, String)] {
            let store = PackageStore(root: temp.path("store-\(runtime ?? "none")"))
            let before = origin.settledAccessLog().count
            let report = try updater(origin, store, runtime: runtime).run()
            #expect(report.succeeded && report.packages.map(\.action) == [.installed], "\(report.packages)")
            #expect(store.activeVersion(of: "demo") == expected, "runtime \(runtime ?? "none")")
            #expect(zipsFetched(origin, after: before).map { $0.hasPrefix("/zips/demo-\(expected).") } == [true],
                    "only its own release is downloaded")
        }

        let old = PackageStore(root: temp.path("store-1"))
        let before = origin.settledAccessLog().count
        let report = try updater(origin, old, runtime: "1.9.0").run()
        #expect(report.succeeded, "incompatible is not a failure")
        #expect(report.packages.map(\.action) == [.incompatible] && report.packages.first?.to == "3.0.0")
        #expect(report.packages.first?.detail == "demo: no release fits runtime 1.9.0 (newest 3.0.0 is for '>=3.0.0 <4')")
        #expect(old.activeVersion(of: "demo") == nil && zipsFetched(origin, after: before).isEmpty)

        // Packing the next 3.x release leaves the 2.x release listed.
        try publish("3.1.0", for: ">=3.0.0 <4")
        let now = try #require(try PublishedManifest.read(originRoot + "/manifest.json")).manifest
        #expect(now.packages.map(\.version) == ["3.1.0", "2.5.0"])
    }

    @Test func aHostUpgradeSwitchesAtOnceAndADowngradeGoesBackToTheInstalledRelease() throws {
        try publish("2.5.0", for: "2.x")
        try publish("3.0.0", for: "3.x", from: "1.1.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        let store = PackageStore(root: temp.path("store"))
        // Closed at the updater's clock (01:00): only what must not wait activates.
        let closed = ["02:00-04:00"]
        #expect(try updater(origin, store, runtime: "2.4.0").run().packages.map(\.action) == [.installed])
        #expect(store.activeVersion(of: "demo") == "2.5.0")

        let upgraded = try updater(origin, store, runtime: "3.0.0", windows: closed).run()
        #expect(upgraded.packages.map(\.action) == [.upgraded], "not pending: 2.5.0 does not fit the new host")
        #expect(store.activeVersion(of: "demo") == "3.0.0")

        let before = origin.settledAccessLog().count
        let downgraded = try updater(origin, store, runtime: "2.4.0", windows: closed).run()
        #expect(downgraded.packages.map(\.action) == [.downgraded], "\(downgraded.packages)")
        #expect(store.activeVersion(of: "demo") == "2.5.0")
        #expect(zipsFetched(origin, after: before).isEmpty, "2.5.0 was still installed")
    }

    @Test func anActiveVersionNoReleaseFitsStopsBeingServedUntilOneDoes() throws {
        try publish("2.5.0", for: "2.x")
        try publish("3.0.0", for: "3.x", from: "1.1.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        let store = PackageStore(root: temp.path("store"))
        #expect(try updater(origin, store, runtime: "3.1.0").run().succeeded)
        #expect(store.activeVersion(of: "demo") == "3.0.0")
        let resolver = try Resolver(store: store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
        let served = try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/index.html"))
        #expect(served?.source == .package(name: "demo", version: "3.0.0"))

        // The host jumps to 4.0.0: nothing published fits it, and 3.0.0 was built for 3.x.
        let report = try updater(origin, store, runtime: "4.0.0").run()
        #expect(report.succeeded && report.packages.map(\.action) == [.incompatible], "\(report.packages)")
        #expect(report.packages.first?.detail == "demo: no release fits runtime 4.0.0 (newest 3.0.0 is for '3.x'); "
                + "3.0.0 is for '3.x', not runtime 4.0.0; no longer served, so the app falls back to what it ships")
        #expect(store.activeVersion(of: "demo") == nil)
        #expect(try store.incompatibleVersion(of: "demo") == IncompatibleVersion(version: "3.0.0", range: "3.x", runtime: "4.0.0"))
        #expect(try store.record(of: "demo", version: "3.0.0") != nil, "kept installed, for a host that goes back")
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/index.html")) == nil,
                "a running resolver stops serving it")

        try publish("4.0.0", for: ">=4", from: "1.1.0")
        let fixed = try updater(origin, store, runtime: "4.0.0").run()
        #expect(fixed.packages.map(\.action) == [.installed])
        #expect(store.activeVersion(of: "demo") == "4.0.0")
        #expect(try store.incompatibleVersion(of: "demo") == nil)
    }

    @Test func withNoReleaseForItsRuntimeADeviceFallsBackOnAnInstalledVersionThatFits() throws {
        try publish("2.5.0", for: "2.x")
        try publish("3.0.0", for: "3.x", from: "1.1.0")
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        let store = PackageStore(root: temp.path("store"))
        _ = try updater(origin, store, runtime: "2.4.0").run()
        _ = try updater(origin, store, runtime: "3.0.0").run()
        #expect(store.activeVersion(of: "demo") == "3.0.0")
        // The publisher drops the 2.x release; then the host goes back to 2.4.0.
        try SigningFixtures.editSignedManifest(in: originRoot, signer: try signing.signer("release")) { manifest in
            manifest.packages.removeAll { $0.runtime == "2.x" }
        }
        let before = origin.settledAccessLog().count
        let report = try updater(origin, store, runtime: "2.4.0").run()
        #expect(report.succeeded && report.packages.map(\.action) == [.incompatible])
        #expect(report.packages.first?.detail == "demo: no release fits runtime 2.4.0 (newest 3.0.0 is for '3.x'); "
                + "3.0.0 is for '3.x', not runtime 2.4.0; switched to installed 2.5.0")
        #expect(store.activeVersion(of: "demo") == "2.5.0")
        #expect(zipsFetched(origin, after: before).isEmpty)
    }

    @Test func rolloutAndRevokeChangeOneReleaseOfThePackage() throws {
        try publish("2.4.0", for: "2.x")
        try publish("3.0.0", for: "3.x", from: "1.1.0")
        let publisher = PublishingFolder(originRoot)
        try publish("2.5.0", for: "2.x", from: "1.1.0", rollout: 0)
        let origin = try NginxOrigin(root: originRoot, accessLog: true)
        let signer = try signing.signer("release")

        #expect(throws: PkgError.self) { try publisher.setRollout(name: "demo", percent: 100, signer: signer) }
        do {
            try publisher.setRollout(name: "demo", percent: 100, signer: signer)
        } catch {
            #expect("\(error)" == "demo has releases for several runtimes ('3.x', '2.x'); name one with --runtime")
        }
        let three = PackageStore(root: temp.path("three")), two = PackageStore(root: temp.path("two"))
        _ = try updater(origin, three, runtime: "3.0.0").run()
        _ = try updater(origin, two, runtime: "2.0.0").run()
        #expect(three.activeVersion(of: "demo") == "3.0.0" && two.activeVersion(of: "demo") == "2.4.0",
                "the 2.x release at 0 % keeps 2.x devices on 2.4.0")

        try publisher.setRollout(name: "demo", runtime: RuntimeRange("2.x"), percent: 100, signer: signer)
        _ = try updater(origin, two, runtime: "2.0.0").run()
        #expect(two.activeVersion(of: "demo") == "2.5.0")

        let entry = try publisher.revoke(name: "demo", version: "3.0.0", signer: signer)
        #expect(entry.version == "3.0.0" && entry.runtime == "3.x", "no release before it to go back to")
        let manifest = try #require(try PublishedManifest.read(originRoot + "/manifest.json")).manifest
        #expect(manifest.packages.allSatisfy { $0.revoked == ["3.0.0"] }, "every release of the package lists it")
        let left = try updater(origin, three, runtime: "3.0.0").run()
        #expect(left.packages.map(\.action) == [.failed], "revoked, nothing retained to go back to: it keeps serving")
        _ = try updater(origin, two, runtime: "2.0.0").run()
        #expect(two.activeVersion(of: "demo") == "2.5.0", "the 2.x release is untouched")
    }

    @Test func aRangeChangedOnTheWayIsRefusedWithTheSignature() throws {
        try publish("2.5.0", for: "2.x")
        try publish("3.0.0", for: "3.x", from: "1.1.0")
        // A hostile mirror widens the 3.x release to every runtime, keeping the signatures.
        try SigningFixtures.editSignedManifest(in: originRoot, signer: nil) { manifest in
            manifest.packages[0].runtime = "*"
        }
        let origin = try NginxOrigin(root: originRoot)
        let store = PackageStore(root: temp.path("store"))
        #expect(throws: PkgError.self) { try updater(origin, store, runtime: "2.0.0").run() }
        #expect(store.activeVersion(of: "demo") == nil)
    }
}
