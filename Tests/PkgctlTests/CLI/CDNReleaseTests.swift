import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Devices polling through a real cache (Varnish, keeping a response without `Cache-Control` for
/// 24 h as a CDN does) in front of nginx with the shipped origin include, while a publisher ships a
/// release, a hot fix, a rollout step and a revocation with `pack`, `rollout`, `revoke` and
/// `publish`: each reaches every device within the manifest's max-age (10 s) plus one poll, and no
/// poll ever fails.
@Suite
struct CDNReleaseTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let origin: NginxOrigin
    let cdn: VarnishCache
    static let devices = 3
    /// The manifest's max-age in packaging/origin/nginx.conf.
    static let maxAge = 10.0
    /// How often each device polls.
    static let pollInterval = 1.0

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = try temp.makeDirectory("dest")
        origin = try NginxOrigin(root: dest, accessLog: true, originConfig: true)
        cdn = try VarnishCache(originPort: origin.port)
    }

    func pack(_ version: String, source: String? = nil, _ extra: [String] = []) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["pack", source ?? BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", version,
                               "--out", out, "--route", "www.example.com/app"] + extra)
    }

    /// The demo with `marker` in its page: a release with other bytes.
    func source(_ marker: String) throws -> String {
        let path = temp.path + "/src-" + marker
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.1.0"), toPath: path)
        try Data("<p>\(marker)</p>\n".utf8).write(to: URL(fileURLWithPath: path + "/index.html"))
        return path
    }

    func publish() throws {
        let published = try PkgctlProcess.run(["publish", out, dest])
        #expect(published.status == 0, "\(published.stderr)")
    }

    func poll(_ device: Int) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", temp.path + "/device\(device)", "--manifest", cdn.baseURL + "/manifest.json",
                               "--device-id", "device\(device)"])
    }

    func active(_ device: Int) -> String? {
        PackageStore(root: temp.path + "/device\(device)").activeVersion(of: "demo")
    }

    /// How long a change took to reach every device, and the longest round of polls meanwhile.
    struct Reach {
        var seconds: TimeInterval
        /// One poll of each device and the pause after: a round's length is how often a device
        /// asks, which under a sanitizer or a busy machine is more than `pollInterval`.
        var longestRound: TimeInterval
    }

    /// Polls every device once a second until all run `version`; says how long that took from `since`.
    /// Every poll must succeed; gives up (failing) past max-age plus two rounds and some slack.
    func untilEveryDeviceRuns(_ version: String, since: Date, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> Reach {
        var longestRound = Self.pollInterval
        var limit: TimeInterval { Self.maxAge + 2 * longestRound + 5 }
        while Date().timeIntervalSince(since) < limit {
            let round = Date()
            for device in 0..<Self.devices {
                let result = try poll(device)
                #expect(result.status == 0, "device \(device): \(result.stderr)", sourceLocation: sourceLocation)
            }
            if (0..<Self.devices).allSatisfy({ active($0) == version }) {
                return Reach(seconds: Date().timeIntervalSince(since), longestRound: longestRound)
            }
            Thread.sleep(forTimeInterval: Self.pollInterval)
            longestRound = max(longestRound, Date().timeIntervalSince(round))
        }
        Issue.record("devices run \((0..<Self.devices).map(active)) \(limit) s after, not \(version)", sourceLocation: sourceLocation)
        return Reach(seconds: limit, longestRound: longestRound)
    }

    @Test func aReleaseAHotFixARolloutStepAndARevocationReachEveryDeviceWithinMaxAgePlusOnePoll() throws {
        #expect(try pack("1.0.0").status == 0)
        try publish()
        _ = try untilEveryDeviceRuns("1.0.0", since: Date())
        var took: [String: Reach] = [:]

        // A new release.
        #expect(try pack("1.1.0", source: try source("1.1.0")).status == 0)
        var published = Date()
        try publish()
        took["release"] = try untilEveryDeviceRuns("1.1.0", since: published)

        // A hot fix: the same version re-packed is refused, so it ships as 1.1.1.
        let fix = try source("fix")
        let refused = try pack("1.1.0", source: fix)
        #expect(refused.status == 1 && refused.stderr.contains("demo 1.1.0 is already published with other bytes"),
                "\(refused.stderr)")
        #expect(try pack("1.1.1", source: fix).status == 0)
        published = Date()
        try publish()
        took["hot fix"] = try untilEveryDeviceRuns("1.1.1", since: published)

        // A rollout step: 1.2.0 at 0 % reaches no device; the step to 100 % reaches them all.
        #expect(try pack("1.2.0", source: try source("1.2.0"), ["--rollout", "0"]).status == 0)
        try publish()
        for device in 0..<Self.devices { #expect(try poll(device).status == 0) }
        #expect((0..<Self.devices).allSatisfy { active($0) == "1.1.1" }, "staged at 0 %")
        #expect(try PkgctlProcess.run(["rollout", out, "demo", "100"]).status == 0)
        published = Date()
        try publish()
        took["rollout step"] = try untilEveryDeviceRuns("1.2.0", since: published)

        // A revocation: every device goes back to the version it ran before.
        #expect(try PkgctlProcess.run(["revoke", out, "demo", "1.2.0"]).status == 0)
        published = Date()
        try publish()
        took["revocation"] = try untilEveryDeviceRuns("1.1.1", since: published)

        print("through Varnish, every device ran each change after (s): \(took.mapValues { ($0.seconds * 10).rounded() / 10 })")
        // Max-age, then the round under way when the cached manifest went stale and one more.
        for (change, reach) in took {
            #expect(reach.seconds <= Self.maxAge + 2 * reach.longestRound + 2,
                    "\(change) took \(reach.seconds) s, with rounds of polls up to \(reach.longestRound) s")
        }
        #expect(!origin.outcomeReports().contains { $0.outcome == .failed }, "no device reported a failure")
    }
}
