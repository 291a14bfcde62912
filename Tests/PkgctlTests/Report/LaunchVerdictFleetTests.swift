import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Verdicts of trials by launches as the fleet counts them (issue 47): confirmed apart from merely
/// installed, reverted by reason and counted as failures, as `fleet watch`'s evidence rule reads them;
/// installs from the zip by the reason a delta gave way. The text, JSON and page share the numbers.
@Suite struct LaunchVerdictFleetTests {
    private static func line(_ report: OutcomeReport) -> String {
        #"127.0.0.1 - - [25/Nov/2026:18:30:00 +0000] "GET /report/v1?\#(report.query) HTTP/1.1" 204 0 "-" "-""#
    }

    private static func verdict(_ decision: LaunchVerdict.Decision, _ problem: LaunchProblem? = nil) -> LaunchVerdict {
        LaunchVerdict(decision: decision, problem: problem, previous: decision == .reverted ? "1.0.0" : nil,
                      servedDigest: String(repeating: "ab", count: 32), decidedAt: Date(), reported: false)
    }

    @Test func confirmedAndRevertedLaunchesAreCountedByReasonBesideInstalls() throws {
        var lines: [String] = []
        for device in 0..<10 {
            let id = "device-\(device)"
            var upgraded = OutcomeReport(package: "demo", release: "1.1.0", from: "1.0.0", outcome: .upgraded,
                                         device: DevicePseudonym.make(deviceID: id, package: "demo", release: "1.1.0"),
                                         client: "0.1.0")
            upgraded.zipFallback = device < 2 ? .hashMismatch : device == 2 ? .missingBase : nil
            lines.append(Self.line(upgraded))
            let verdict: LaunchVerdict? = switch device {
            case 0..<5: Self.verdict(.confirmed)
            case 5..<8: Self.verdict(.reverted, LaunchProblem(reason: .missingFile, missingCount: 2, paths: ["/app/js/a.js"]))
            case 8: Self.verdict(.reverted, LaunchProblem(reason: .host, detail: "render deadline"))
            default: nil  // installed, never launched: on trial
            }
            if let verdict {
                lines.append(Self.line(OutcomeReport(verdict, package: "demo", release: "1.1.0", deviceID: id, client: "0.1.0")))
            }
        }
        var tally = FleetTally()
        var reader = ReportLogReader()
        for line in lines { Array(line.utf8).withUnsafeBufferPointer { reader.read(line: $0, into: &tally) } }
        let release = try #require(tally.releases.first { $0.release == "1.1.0" })
        #expect(release.installs == 10)
        #expect(release.confirmedDevices == 5)
        #expect(release.revertReasons.mapValues(\.count) == ["missingFile": 3, "host": 1])
        #expect(release.failedDevices == 4, "a revert is a failure of the release where it ran")
        let summary = try #require(FleetSummary(tally).releases.first)
        #expect(summary.outcomes["confirmed"] == 5 && summary.outcomes["reverted"] == 4)
        #expect(summary.reverts == ["missingFile": 3, "host": 1])
        #expect(summary.zipFallbacks == ["hashMismatch": 2, "missingBase": 1])

        // The fleet page: the same numbers in the row's data and in words.
        let page = FleetReportPage(tally: tally).html
        #expect(page.contains(#"data-confirmed="5" data-reverted="4" data-zip-fallbacks="3""#), "\(page)")
        #expect(page.contains("<td>5</td><td>4 (host 1, missingFile 3)</td>"), "\(page)")
        #expect(page.contains("<td>3 (hashMismatch 2, missingBase 1)</td>"), "\(page)")
    }
}
