import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// A release settled by what its launches loaded (issue 47): the resolver over the store records
/// each launch of a version on trial by launches, and confirms it after K clean ones or switches
/// back and holds it after M bad ones. Real zips packed as a publisher packs them, a real store and
/// resolver; the origin is a closed port, as for a device offline.
@Suite struct LaunchTrialTests {
    let temp: TemporaryDirectory
    let originRoot: String
    let store: PackageStore
    var manifestURL: String { "file://" + originRoot + "/manifest.json" }
    /// Nothing listens there: every origin fallback fails at once, as offline.
    static let offline = ResolverConfiguration(upstream: "http://127.0.0.1:9", connectTimeoutMilliseconds: 500)

    init() throws {
        temp = try TemporaryDirectory()
        originRoot = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
    }

    /// demo 1.0.0 installed and confirmed, then 1.1.0 switched in on trial by `rule`; with
    /// `lacking`, 1.1.0's page also loads that script, which the package does not ship.
    private func tryRelease(rule: LaunchTrialRule, lacking script: String? = nil) throws {
        try BundleFixtures.publishDemo(["1.0.0"], into: originRoot)
        #expect(try updater(.immediate).run().succeeded)
        let source = temp.path + "/1.1.0"
        try BundleFixtures.copyDemo(to: source, pageLoading: script)
        try PublishingFolder(originRoot).pack(source: source, name: "demo", version: "1.1.0",
                                              options: .init(routes: ["www.example.com/app"]))
        #expect(try updater(.launches(rule)).run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.trial(of: "demo")?.confirmedBy == .launches)
    }

    private func updater(_ activation: Activation) -> Updater {
        Updater(store: store, manifestURL: manifestURL,
                transfer: TransferOptions(connectTimeout: 2, stallTimeout: 2, maxAttempts: 1), activation: activation)
    }

    /// One launch as a web view makes it: the page, then what it loads, then an API call; the
    /// resolver then goes away (the app closes), which ends the launch.
    private func launch(loading paths: [String], api: Bool = true) throws {
        let resolver = try Resolver(store: store, configuration: Self.offline)
        var requests = [RecordingTask("app://www.example.com/app/index.html", accept: "text/html,*/*")]
        requests += paths.map { RecordingTask("app://www.example.com/app/" + $0, accept: "*/*") }
        if api { requests.append(RecordingTask("app://www.example.com/api/user", accept: "application/json")) }
        for task in requests {
            resolver.start(task)
            task.wait()
        }
        resolver.shutdown()
    }

    @Test func aReleaseWhosePageLoadsAScriptItLacksIsRevertedAndHeldAfterMBadLaunches() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 3, revertAfter: 2), lacking: "js/missing.js")
        let digest = TreeDigest.of(try #require(try store.record(of: "demo", version: "1.1.0")).index)

        try launch(loading: ["css/style.css", "js/app.js", "js/missing.js"])
        #expect(store.activeVersion(of: "demo") == "1.1.0", "one bad launch of two: still on trial")
        #expect(try store.launchTally(of: "demo", version: "1.1.0")?.bad == 1)

        try launch(loading: ["css/style.css", "js/app.js", "js/missing.js"])
        #expect(store.activeVersion(of: "demo") == "1.0.0", "switched back after the second")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        #expect(try store.trial(of: "demo") == nil)
        let tally = try #require(try store.launchTally(of: "demo", version: "1.1.0"))
        let verdict = try #require(tally.verdict)
        #expect(verdict.decision == .reverted && verdict.previous == "1.0.0")
        #expect(verdict.problem == LaunchProblem(reason: .missingFile, missingCount: 1, paths: ["/app/js/missing.js"]))
        #expect(verdict.servedDigest == digest, "the served digest is the installed tree's")

        // The report `update` sends: reverted, why, and the digest the fleet compares with the release.
        let report = OutcomeReport(verdict, package: "demo", release: "1.1.0", deviceID: "device", client: "0.1.0")
        let read = try #require(OutcomeReport(query: Substring(report.query)))
        #expect(read.outcome == .reverted && read.cause == "missingFile" && read.notFound == 1 && read.from == "1.0.0")
        #expect(read.servedDigest == String(digest.prefix(16)))

        // Held: the next run neither tries it again nor counts the old launches anew.
        #expect(try updater(.launches(try LaunchTrialRule())).run().succeeded)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
    }

    /// The settling writes the verdict before it switches. A crash between the two (here: the
    /// verdict written, the switch not made) is finished by the next settling, under the lock.
    @Test func aVerdictWrittenBeforeACrashIsCarriedOutByTheNextSettling() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 3, revertAfter: 2))
        let verdict = LaunchVerdict(decision: .reverted, problem: LaunchProblem(reason: .host, detail: "crash"),
                                    previous: "1.0.0", servedDigest: nil, decidedAt: Date(timeIntervalSince1970: 1_800_000_000), reported: false)
        try LaunchTally.update(name: "demo", version: "1.1.0", layout: store.layout) { tally in
            tally.count(verdict.problem)
            tally.verdict = verdict
            return true
        }
        #expect(store.activeVersion(of: "demo") == "1.1.0", "the crash left the switch unmade")

        #expect(try store.settleLaunchTrial("demo") == verdict)
        #expect(store.activeVersion(of: "demo") == "1.0.0")
        #expect(try store.heldVersions(of: "demo") == ["1.1.0"])
        #expect(try store.trial(of: "demo") == nil)
        #expect(try store.settleLaunchTrial("demo") == nil, "settled once")
    }

    @Test func aGoodReleaseIsConfirmedAfterKCleanLaunchesWithTheOriginUnreachable() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 2, revertAfter: 1))
        for _ in 0..<2 { try launch(loading: ["css/style.css", "js/app.js", "img/logo.png"]) }
        #expect(try store.trial(of: "demo") == nil, "confirmed")
        #expect(store.activeVersion(of: "demo") == "1.1.0")
        #expect(try store.launchTally(of: "demo", version: "1.1.0")?.verdict?.decision == .confirmed)
        #expect(try store.launchTally(of: "demo", version: "1.1.0")?.bad == 0,
                "an API call the offline origin failed is no bad launch")
    }

    @Test func aReleaseNeverLaunchedStaysOnTrialAndStatusShowsItsLaunches() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 2, revertAfter: 2))
        // A resolver that answered no navigation: a prefetch, a script. No launch, no verdict.
        let resolver = try Resolver(store: store, configuration: Self.offline)
        let script = RecordingTask("app://www.example.com/app/js/app.js", accept: "*/*")
        resolver.start(script)
        script.wait()
        resolver.shutdown()
        #expect(try store.trial(of: "demo")?.version == "1.1.0")
        #expect(try store.launchTally(of: "demo", version: "1.1.0") == nil)

        try launch(loading: ["js/app.js"])
        let status = try PkgctlProcess.run(["status", "--root", store.layout.root, "--json"])
        let listing = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let package = try #require((listing?["packages"] as? [[String: Any]])?.first)
        let trial = try #require(package["trial"] as? [String: Any], "\(status.stdout)")
        #expect(trial["version"] as? String == "1.1.0" && trial["confirmedBy"] as? String == "launches")
        let launches = try #require(trial["launches"] as? [String: Any], "\(status.stdout)")
        #expect(launches["clean"] as? Int == 1 && launches["bad"] as? Int == 0)
        #expect(launches["confirmAfter"] as? Int == 2 && launches["revertAfter"] as? Int == 2)
        let text = try PkgctlProcess.run(["status", "--root", store.layout.root])
        #expect(text.stdout.contains("  trial: 1 of 2 clean launches to confirm, 0 of 2 bad to revert\n"), "\(text.stdout)")
    }

    @Test func aPageThePackageLacksAndTheHostsReportAreBadLaunches() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 5, revertAfter: 5))
        let resolver = try Resolver(store: store, configuration: Self.offline)
        let missingPage = RecordingTask("app://www.example.com/app/nowhere.html", accept: "text/html")
        resolver.start(missingPage)
        missingPage.wait()
        let page = RecordingTask("app://www.example.com/app/index.html", accept: "text/html")
        resolver.start(page)
        page.wait()
        #expect(resolver.reportLaunchProblem(url: "app://www.example.com/app/index.html", detail: "TypeError: x is undefined"))
        #expect(!resolver.reportLaunchProblem(url: "app://www.example.com/elsewhere/", detail: "not ours"))
        resolver.shutdown()
        let tally = try #require(try store.launchTally(of: "demo", version: "1.1.0"))
        #expect(tally.bad == 2 && tally.clean == 0)
        #expect(tally.badByReason == ["noPage": 1, "host": 1])
        #expect(tally.lastProblem?.summary == "the host reported: TypeError: x is undefined")
    }

    @Test func aRedirectToTheFolderIsNotALaunchOfItsOwn() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: 5, revertAfter: 5))
        let resolver = try Resolver(store: store, configuration: Self.offline)
        for url in ["app://www.example.com/app", "app://www.example.com/app/"] {
            let page = RecordingTask(url, accept: "text/html")
            resolver.start(page)
            page.wait()
        }
        resolver.shutdown()
        #expect(try store.launchTally(of: "demo", version: "1.1.0")?.clean == 1, "the 301, then the page: one launch")
    }

    @Test func theTallyStaysWithinItsBoundAfterTenThousandLaunches() throws {
        try tryRelease(rule: try LaunchTrialRule(confirmAfter: LaunchTrialRule.limit, revertAfter: LaunchTrialRule.limit))
        let launches = Sanitizer.isActive ? 2_000 : 10_000
        let resolver = try Resolver(store: store, configuration: Self.offline)
        for index in 0..<launches {
            let page = RecordingTask("app://www.example.com/app/index.html", accept: "text/html")
            resolver.start(page)
            page.wait()
            if index % 3 == 0 {
                let missing = RecordingTask("app://www.example.com/app/js/gone-\(index).js", accept: "*/*")
                resolver.start(missing)
                missing.wait()
            }
        }
        resolver.shutdown()
        let file = LaunchTally.file(store.layout, name: "demo", version: "1.1.0")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size < 1024, "\(size) bytes after \(launches) launches")
        let tally = try #require(try store.launchTally(of: "demo", version: "1.1.0"))
        #expect(tally.clean + tally.bad <= launches)
        #expect(tally.verdict != nil || tally.clean + tally.bad == launches)
        #expect(tally.lastProblem?.paths.count == 1)
    }
}
