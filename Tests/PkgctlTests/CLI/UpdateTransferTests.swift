import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `update --json` says what each package cost (requests, bytes per kind, time), true to what
/// nginx logged sending, and `fleet report` sums the bytes the devices' reports carry.
@Suite struct UpdateTransferTests {
    let site: PublishingOrigin

    init() throws {
        site = try PublishingOrigin()
    }

    private struct Report: Decodable {
        struct Count: Decodable { let requests: Int; let bytes: UInt64 }
        struct Transfer: Decodable {
            let delta, objects, zip: Count?
            let requests: Int
            let bytes: UInt64
            let seconds: Double
        }
        struct Package: Decodable { let name, to, action: String; let transfer: Transfer? }
        let manifestTransfer: Count?
        let packages: [Package]
    }

    /// Runs `update --json`; returns its report and the nginx log lines it caused.
    private func update(_ store: String) throws -> (Report, [String]) {
        let before = site.origin.settledAccessLog().count
        let run = try PkgctlProcess.run(["update", "--root", store, "--manifest", site.manifestURL, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.stdout.utf8))
        let lines = site.origin.settledAccessLog().dropFirst(before).filter { !$0.hasPrefix("/.pkgctl-settle-") }
        return (report, Array(lines))
    }

    /// The requests in `lines` (`$request_uri $status "$http_range" $body_bytes_sent …`) under
    /// `folders`, and the body bytes nginx sent for them.
    private static func requests(_ lines: [String], under folders: [String]) -> (count: Int, body: UInt64) {
        let files = lines.filter { line in folders.contains { line.hasPrefix($0) } }
        let body = files.compactMap { line -> UInt64? in
            let fields = line.split(separator: " ")
            return fields.count > 3 ? UInt64(fields[3]) : nil
        }.reduce(0, +)
        return (files.count, body)
    }

    /// Each kind's count agrees with what nginx logged sending: as many requests, and the body
    /// bytes plus a few hundred bytes of headers each.
    private static func expectAgrees(_ count: Report.Count?, with lines: [String], under folders: [String]) {
        let (requests, body) = Self.requests(lines, under: folders)
        #expect((count?.requests ?? 0) == requests, "\(folders): \(String(describing: count)) vs \(requests) logged")
        let bytes = count?.bytes ?? 0
        #expect(bytes >= body && bytes <= body + 1000 * UInt64(requests), "\(folders): \(bytes) vs \(body) body bytes")
    }

    @Test func eachPackageSaysWhatItFetchedAndTheFleetReportSumsIt() throws {
        let store = site.temp.path("store")
        try BundleFixtures.packDemo("1.0.0", into: site.out)
        let (first, firstLog) = try update(store)
        let installed = try #require(first.packages.first?.transfer, "\(first)")
        #expect(installed.delta == nil && installed.objects == nil && installed.zip?.requests == 1)
        Self.expectAgrees(installed.zip, with: firstLog, under: ["/zips/"])
        #expect(installed.seconds > 0 && installed.seconds < 60)
        Self.expectAgrees(first.manifestTransfer, with: firstLog, under: ["/manifest.json"])

        // The next release: the index, then whatever the device chose to fetch (objects or the zip).
        try BundleFixtures.packDemo("1.1.0", into: site.out)
        let (second, secondLog) = try update(store)
        let upgraded = try #require(second.packages.first?.transfer, "\(second)")
        Self.expectAgrees(upgraded.objects, with: secondLog, under: ["/index/", "/objects/"])
        Self.expectAgrees(upgraded.zip, with: secondLog, under: ["/zips/"])
        Self.expectAgrees(upgraded.delta, with: secondLog, under: ["/deltas/"])
        #expect(upgraded.requests == Self.requests(secondLog, under: ["/index/", "/objects/", "/zips/", "/deltas/"]).count)
        #expect(upgraded.bytes == [upgraded.delta, upgraded.objects, upgraded.zip].compactMap { $0?.bytes }.reduce(0, +))

        // Nothing changed: the manifest's 304 only, no package transfer.
        let (third, _) = try update(store)
        #expect(third.packages.allSatisfy { $0.transfer == nil } && (third.manifestTransfer?.requests ?? 0) >= 1)

        // The reports carry the bytes; fleet report sums them per release.
        let reports = site.origin.outcomeReports()
        #expect(reports.map { "\($0.release) \($0.outcome.rawValue) \($0.bytes ?? 0)" }
                    == ["1.0.0 installed \(installed.bytes)", "1.1.0 upgraded \(upgraded.bytes)"])
        let log = try site.temp.write(Array(site.origin.settledAccessLog().joined(separator: "\n").utf8), to: "access.log")
        let fleet = try PkgctlProcess.run(["fleet", "report", log, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(fleet.stdout.utf8)) as? [String: Any])
        let fetched = (summary["releases"] as? [[String: Any]] ?? []).map { ($0["release"] as? String ?? "", $0["bytesFetched"] as? Int) }
        #expect(fetched.map(\.0) == ["1.0.0", "1.1.0"] && fetched.map(\.1) == [Int(installed.bytes), Int(upgraded.bytes)])
        let text = try PkgctlProcess.run(["fleet", "report", log])
        #expect(text.stdout.contains("; \(installed.bytes) bytes fetched in 1 reported runs"), "\(text.stdout)")
    }
}
