import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension WebEngineSuites {
    /// A release settled by what a real engine loaded (issue 47), in each example app with no code
    /// of its own for it: releases packed as a publisher packs them, installed by
    /// `pkgctl update --confirm-after-launches 2 --revert-after-bad-launches 2`, and each app run
    /// once per launch, offline, until the demo's status line is written.
    @Suite(.serialized, .enabled(if: !HybridApp.available.isEmpty, "needs HYBRID_APP, HYBRID_APP_C, HYBRID_APP_QT or HYBRID_APP_GTK_PYTHON and a display (scripts/test)"))
    struct HybridAppLaunchTrialTests {
        let directory: TemporaryDirectory
        var origin: String { directory.path + "/origin" }
        var root: String { directory.path + "/store" }
        var store: PackageStore { PackageStore(root: root) }

        init() throws {
            directory = try TemporaryDirectory()
        }

        /// Packs demo `version` from the sample's 1.1.0, its page also loading `lacking` when given.
        private func pack(_ version: String, lacking script: String? = nil) throws {
            let source = directory.path + "/source-" + version
            try BundleFixtures.copyDemo(to: source, pageLoading: script)
            let packed = try PkgctlProcess.run(["pack", source, "--name", "demo", "--version", version, "--out", origin,
                                                "--route", "www.example.com/app"])
            #expect(packed.status == 0, "\(packed.stderr)")
        }

        private func update() throws {
            let run = try PkgctlProcess.run(["update", "--root", root, "--manifest", "file://" + origin + "/manifest.json",
                                             "--confirm-after-launches", "2", "--revert-after-bad-launches", "2",
                                             "--no-report", "--quiet"])
            #expect(run.status == 0, "\(run.stderr)")
        }

        /// One app start: the demo page, offline, until its status is written; then the app exits.
        private func launch(_ app: HybridApp) throws {
            let run = try HybridAppProcess.run(app, ["--root", root, "--offline", "--dump-dom", "--wait-for",
                                                     "document.getElementById('status').textContent !== 'loading…'",
                                                     "app://www.example.com/app/"])
            #expect(run.status == 0, "\(run.log.suffix(20))")
        }

        @Test(arguments: HybridApp.available)
        func aReleaseLackingAScriptIsRevertedAGoodOneConfirmedAndOneNeverLaunchedStaysOnTrial(app: HybridApp) throws {
            try BundleFixtures.packDemo("1.0.0", into: origin)
            try update()
            #expect(try store.trial(of: "demo")?.version == "1.0.0", "a first install is on trial too")
            for _ in 0..<2 { try launch(app) }
            #expect(try store.trial(of: "demo") == nil, "1.0.0 confirmed by 2 clean launches")

            // A release whose page loads a script the package lacks: reverted and held after 2 launches.
            try pack("1.1.0", lacking: "js/missing.js")
            try update()
            #expect(store.activeVersion(of: "demo") == "1.1.0")
            try launch(app)
            #expect(store.activeVersion(of: "demo") == "1.1.0", "one bad launch of two")
            try launch(app)
            #expect(store.activeVersion(of: "demo") == "1.0.0")
            #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
            let verdict = try #require(try store.launchTally(of: "demo", version: "1.1.0")?.verdict)
            #expect(verdict.decision == .reverted && verdict.problem?.reason == .missingFile, "\(verdict)")
            #expect(verdict.problem?.paths == ["/app/js/missing.js"], "\(verdict)")

            // A good release: confirmed after 2 launches.
            try pack("1.2.0")
            try update()
            #expect(store.activeVersion(of: "demo") == "1.2.0")
            for _ in 0..<2 { try launch(app) }
            #expect(try store.trial(of: "demo") == nil)
            #expect(try store.launchTally(of: "demo", version: "1.2.0")?.verdict?.decision == .confirmed)
            #expect(store.activeVersion(of: "demo") == "1.2.0")

            // A release never launched stays on trial, whatever updates run.
            try pack("1.3.0")
            try update()
            try update()
            #expect(try store.trial(of: "demo")?.version == "1.3.0")
            #expect(store.activeVersion(of: "demo") == "1.3.0")
            #expect(try store.launchTally(of: "demo", version: "1.3.0") == nil)
        }
    }
}
