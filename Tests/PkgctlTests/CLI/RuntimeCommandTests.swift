import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Host-runtime targeting through the command line against nginx: `pack --runtime` adding a
/// release per range, `update --runtime` (flag and config), the `incompatible` outcome in the
/// origin's log and `fleet report`, `status` flagging a version the host outgrew and one no
/// longer served, and one-line refusals of ranges and runtimes that do not parse.
@Suite struct RuntimeCommandTests {
    let site: PublishingOrigin

    init() throws {
        site = try PublishingOrigin()
    }

    private func update(_ store: String, _ extra: [String]) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL] + extra)
    }

    @Test func eachRuntimeGetsItsReleaseAndAnOutgrownOneIsReportedThenNoLongerServed() throws {
        try BundleFixtures.packDemo("2.5.0", into: site.out, from: "1.0.0", ["--runtime", "2.x"])
        try BundleFixtures.packDemo("3.0.0", into: site.out, from: "1.1.0", ["--runtime", ">=3.0.0 <4"])
        let store = site.temp.path("store")
        let two = try update(store, ["--runtime", "2.4.1"])
        #expect(two.status == 0 && two.stdout == "demo: installed 2.5.0\n", "\(two.stdout)\(two.stderr)")

        // The host is upgraded; before update runs, status (reading update.runtime from the config) flags it.
        let config = try site.temp.write(Array(#"{"update": {"runtime": "4.0.0"}}"#.utf8), to: "config.json")
        let flagged = try PkgctlProcess.run(["status", "--root", store, "--config", config])
        #expect(flagged.stdout.contains("  runtime: 2.x (INCOMPATIBLE with runtime 4.0.0; the next update leaves it)\n"),
                "\(flagged.stdout)\(flagged.stderr)")
        let three = try update(store, ["--runtime", "3.2.0"])
        #expect(three.stdout == "demo: 2.5.0 -> 3.0.0 (upgraded)\n", "\(three.stdout)\(three.stderr)")

        let outgrown = try update(store, ["--config", config])
        #expect(outgrown.status == 0, "incompatible is no failure: \(outgrown.stderr)")
        #expect(outgrown.stdout == "demo: no release fits runtime 4.0.0 (newest 3.0.0 is for '>=3.0.0 <4'); 3.0.0 is for "
                + "'>=3.0.0 <4', not runtime 4.0.0; no longer served, so the app falls back to what it ships\n")
        let status = try PkgctlProcess.run(["status", "--root", store])
        #expect(status.stdout == "demo: not served: 3.0.0 is for '>=3.0.0 <4', not runtime 4.0.0; update installs a "
                + "release that fits once one is published\n", "\(status.stdout)")
        struct Listing: Decodable {
            struct NotServed: Decodable, Equatable { let name, version, range, runtime: String }
            let notServed: [NotServed]
        }
        let json = try PkgctlProcess.run(["status", "--root", store, "--json"])
        #expect(try JSONDecoder().decode(Listing.self, from: Data(json.stdout.utf8)).notServed
                == [.init(name: "demo", version: "3.0.0", range: ">=3.0.0 <4", runtime: "4.0.0")], "\(json.stdout)")

        let reports = site.origin.outcomeReports()
        #expect(reports.map { "\($0.release) \($0.outcome.rawValue)" } == ["2.5.0 installed", "3.0.0 upgraded", "3.0.0 incompatible"])
        let log = try site.temp.write(Array(site.origin.settledAccessLog().joined(separator: "\n").utf8), to: "access.log")
        let fleet = try PkgctlProcess.run(["fleet", "report", log])
        #expect(fleet.stdout.contains("demo 3.0.0: 1 devices, 1 installed") && fleet.stdout.contains(", 1 incompatible;"),
                "\(fleet.stdout)\(fleet.stderr)")
    }

    @Test func packingForOneRangeKeepsTheOthersAndRolloutNeedsTheRangeOnceThereAreSeveral() throws {
        try BundleFixtures.packDemo("2.5.0", into: site.out, from: "1.0.0", ["--runtime", "2.x"])
        try BundleFixtures.packDemo("3.0.0", into: site.out, from: "1.1.0", ["--runtime", "3.x"])
        try BundleFixtures.packDemo("3.1.0", into: site.out, from: "1.0.0", ["--runtime", "^3.0.0", "--rollout", "10"])
        let manifest = try #require(try PublishedManifest.read(site.out + "/manifest.json")).manifest
        #expect(manifest.packages.map { "\($0.version) \($0.runtime ?? "*") \($0.rollout?.previous?.version ?? "-")" }
                == ["3.1.0 ^3.0.0 3.0.0", "2.5.0 2.x -"], "^3.0.0 is 3.x: the same release slot")

        let ambiguous = try PkgctlProcess.run(["rollout", site.out, "demo", "50"])
        #expect(ambiguous.status == 1 && ambiguous.stderr
                == "pkgctl: demo has releases for several runtimes ('^3.0.0', '2.x'); name one with --runtime\n", "\(ambiguous.stderr)")
        let named = try PkgctlProcess.run(["rollout", site.out, "demo", "50", "--runtime", "3.x"])
        #expect(named.status == 0 && named.stdout == "demo 3.1.0: 50 % of devices\n", "\(named.stdout)\(named.stderr)")
        let missing = try PkgctlProcess.run(["rollout", site.out, "demo", "50", "--runtime", "1.x"])
        #expect(missing.stderr == "pkgctl: demo has no release for runtime '1.x'\n", "\(missing.stderr)")
    }

    @Test func rangesAndRuntimesThatDoNotParseAreRefusedInOneLine() throws {
        let pack = try PkgctlProcess.run(["pack", BundleFixtures.demoSource("1.0.0"), "--name", "demo", "--version", "1.0.0",
                                          "--out", site.out, "--runtime", ">=2.3.0 <three"])
        #expect(pack.status == 64)
        #expect(pack.stderr == "pkgctl: --runtime '>=2.3.0 <three' of package demo is not a semver range: 'three' is not a "
                + "version (MAJOR[.MINOR[.PATCH]], numbers of 1-9 digits without leading zeros, x or * for any)\n", "\(pack.stderr)")
        #expect(!FileManager.default.fileExists(atPath: site.out + "/manifest.json"), "nothing published")

        let flag = try update(site.temp.path("s"), ["--runtime", "v3"])
        #expect(flag.status == 64 && flag.stderr == "pkgctl: --runtime must be a version MAJOR[.MINOR[.PATCH]][-PRE][+BUILD] "
                + "(got 'v3')\n", "\(flag.stderr)")
        let config = try site.temp.write(Array(#"{"update": {"runtime": "3.x"}}"#.utf8), to: "config.json")
        let file = try update(site.temp.path("s"), ["--config", config])
        #expect(file.status == 78 && file.stderr.contains("update.runtime must be a version") && file.stderr.split(separator: "\n").count == 1,
                "\(file.stderr)")
    }
}
