import Foundation
import Testing
@testable import PkgCore

/// Devices trusting an offline content key and an online timestamp key, polling through a real
/// cache (Varnish) in front of nginx with the shipped origin include, while a publisher ships
/// releases with `pack --sign`, `timestamp` and `publish`. The cache keeps `timestamp.json` and
/// `manifest.json` from moments 5 s apart, so after each publish it serves one new and one old
/// for 5 s: devices then take the manifest the timestamp names from its snapshot
/// (`snapshots/<sha256>.json`) instead of refusing the run, as devices before snapshots did.
///
/// With `PKGCTL_PREVIOUS` (a pkgctl built from the commit before snapshots, `scripts/previous-device`),
/// such a device updates from the same publisher through every release.
@Suite
struct CDNTimestampTests {
    let temp: TemporaryDirectory
    let out: String
    let dest: String
    let keys: String
    let origin: NginxOrigin
    let cdn: VarnishCache
    static let devices = 3
    /// The manifest's and the timestamp's max-age in packaging/origin/nginx.conf.
    static let maxAge = 10.0
    /// How much older the cache's manifest is than its timestamp: the window, after each
    /// publish, in which it serves a new manifest with an old timestamp.
    static let stagger = 5.0

    init() throws {
        temp = try TemporaryDirectory()
        out = temp.path + "/out"
        dest = try temp.makeDirectory("dest")
        keys = temp.path + "/keys"
        origin = try NginxOrigin(root: dest, accessLog: true, originConfig: true)
        cdn = try VarnishCache(originPort: origin.port)
        try PkgctlProcess.keygen(["content", "online"], in: keys)
    }

    /// Packs `version` signed by the content key, timestamps it with the online key and publishes.
    func release(_ version: String) throws {
        let source = temp.path + "/src-" + version
        try FileManager.default.copyItem(atPath: BundleFixtures.demoSource("1.1.0"), toPath: source)
        try Data("<p>\(version)</p>\n".utf8).write(to: URL(fileURLWithPath: source + "/index.html"))
        for arguments in [["pack", source, "--name", "demo", "--version", version, "--out", out,
                           "--route", "www.example.com/app", "--sign", keys + "/content.key"],
                          ["timestamp", out, "--key", keys + "/online.key"],
                          ["publish", out, dest]] {
            let result = try PkgctlProcess.run(arguments)
            try #require(result.status == 0, "\(arguments[0]): \(result.stderr)")
        }
    }

    func poll(_ device: Int, executable: String = PkgctlProcess.executable) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", temp.path + "/device\(device)",
                               "--manifest", cdn.baseURL + "/manifest.json", "--device-id", "device\(device)",
                               "--trusted-key", keys + "/content.pub", "--timestamp-key", keys + "/online.pub"],
                              executable: executable)
    }

    func active(_ device: Int) -> String? {
        PackageStore(root: temp.path + "/device\(device)").activeVersion(of: "demo")
    }

    /// Makes the cache fetch the manifest now and the timestamp `stagger` seconds later.
    func staggerTheCache() throws {
        for path in ["/manifest.json", "/timestamp.json"] {
            _ = try runCommand("/usr/bin/varnishadm", ["-n", cdn.workDirectory, "ban", "req.url", "==", path])
        }
        #expect(try HTTPExchange.curl(cdn.baseURL + "/manifest.json").status == 200)
        Thread.sleep(forTimeInterval: Self.stagger)
        #expect(try HTTPExchange.curl(cdn.baseURL + "/timestamp.json").status == 200)
    }

    /// Polls each of `devices` with `executable` about once a second until all run `version`,
    /// each poll's failure kept in `refusals`; gives up past both cache entries' expiry plus slack.
    func untilEveryDeviceRuns(_ version: String, devices: Range<Int> = 0..<devices,
                              executable: String = PkgctlProcess.executable, refusals: inout [String]) throws {
        let started = Date()
        while Date().timeIntervalSince(started) < Self.maxAge + Self.stagger + 15 {
            for device in devices {
                let result = try poll(device, executable: executable)
                if result.status != 0 { refusals.append("device \(device): \(result.stderr)") }
            }
            if devices.allSatisfy({ active($0) == version }) { return }
            Thread.sleep(forTimeInterval: 1)
        }
        Issue.record("devices run \(devices.map(active)), not \(version)")
    }

    @Test func devicesBehindACacheNeverRefuseARunWhileTimestampAndManifestAreOutOfStep() throws {
        var refusals: [String] = []
        try release("1.0.0")
        try untilEveryDeviceRuns("1.0.0", refusals: &refusals)
        // One out-of-step publish under a sanitizer: the window is real time, whatever the build.
        let versions = Sanitizer.isActive ? ["1.1.0"] : ["1.1.0", "1.2.0"]
        for version in versions {
            try staggerTheCache()
            try release(version)
            try untilEveryDeviceRuns(version, refusals: &refusals)
        }
        // Each publish left the cache serving the new manifest with the old timestamp for a
        // while; the runs in that while asked for the old manifest's snapshot (through the cache,
        // which asked the origin once for each).
        let snapshots = Set(origin.accessLog().filter { $0.hasPrefix("/snapshots/") && $0.contains(" 200") })
        print("through Varnish: \(snapshots.count) snapshots fetched for \(versions.count) out-of-step publishes, "
              + "\(refusals.count) runs refused")
        #expect(refusals.isEmpty, "\(refusals)")
        #expect(snapshots.count >= 1, "the cache never served the two out of step: \(origin.accessLog())")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["PKGCTL_PREVIOUS"] != nil, "needs PKGCTL_PREVIOUS"))
    func aDeviceOfThePreviousReleaseUpdatesFromThisPublisher() throws {
        let previous = try #require(ProcessInfo.processInfo.environment["PKGCTL_PREVIOUS"])
        var refusals: [String] = []
        try release("1.0.0")
        try untilEveryDeviceRuns("1.0.0", executable: previous, refusals: &refusals)
        for version in ["1.1.0", "1.2.0"] {
            try staggerTheCache()
            try release(version)
            try untilEveryDeviceRuns(version, executable: previous, refusals: &refusals)
        }
        // What such a device did before snapshots too: refuse a run that read the two out of step
        // (the runs this suite's other test makes without a refusal), then go on.
        print("devices of the previous release: \(refusals.count) runs refused through Varnish")
        #expect(refusals.allSatisfy { $0.contains("is not the one timestamp.json names") }, "\(refusals)")
    }
}
