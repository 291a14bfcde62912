import FuzzSupport
import PkgCore

/// `FleetTally.add(line:)` over access-log lines, and `OutcomeReport(query:)` over what follows
/// `/report/v1?` in them. Every line is either skipped, counted as a report or counted as
/// unreadable, never both; a query that reads gives a report whose own `query` reads back equal,
/// with every field printable ASCII within the field limit and counts not negative; a tally's
/// rates (failures, 404s inside the app) stay within 0...1.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFleetLog(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var tally = FleetTally()
    var reportLines = 0
    for line in input.bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let before = (tally.reports, tally.unreadable)
        tally.add(line: line)
        let counted = (tally.reports - before.0) + (tally.unreadable - before.1)
        fuzzCheck(counted <= 1, "one line counted \(counted) times")
        reportLines += counted
        let bytes = Array(line)
        guard let after = end(of: Array("/report/v1?".utf8), in: bytes) else {
            fuzzCheck(counted == 0, "a line without /report/v1? was counted: \(String(decoding: bytes.prefix(200), as: UTF8.self).debugDescription)")
            continue
        }
        let queryBytes = bytes[after...].prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\t") }
        let query = Substring(String(decoding: queryBytes, as: UTF8.self))
        guard let report = OutcomeReport(query: query) else { continue }
        for field in [report.package, report.release, report.device, report.client] + [report.from, report.cause, report.errorCode].compactMap({ $0 }) {
            fuzzCheck(field.utf8.count <= 128 && field.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f },
                      "a field outside printable ASCII or its limit: \(field.debugDescription)")
        }
        for count in [report.notFound, report.originFallbacks].compactMap({ $0 }) {
            fuzzCheck(count >= 0, "a negative count: \(count)")
        }
        fuzzCheck(OutcomeReport(query: Substring(report.query)) == report,
                  "\(query.prefix(300).debugDescription) reads as a report whose query \(report.query.debugDescription) reads otherwise")
    }
    fuzzCheck(tally.reports + tally.unreadable == reportLines, "the tally's counts are not the lines counted")
    for release in tally.releases {
        fuzzCheck((0...1).contains(release.failureRate), "failure rate \(release.failureRate)")
        let interval = release.failureRateInterval
        fuzzCheck(interval.lowerBound >= 0 && interval.upperBound <= 1 && interval.contains(release.failureRate),
                  "interval \(interval) for rate \(release.failureRate)")
        fuzzCheck(release.failedDevices <= release.devices.count && release.installs <= release.devices.count,
                  "more devices in an outcome than reported")
        let notFound = release.notFoundRateInterval
        fuzzCheck((0...1).contains(release.notFoundRate) && notFound.lowerBound >= 0 && notFound.upperBound <= 1
                  && notFound.contains(release.notFoundRate), "404 rate \(release.notFoundRate), interval \(notFound)")
        fuzzCheck(release.notFoundDevices <= release.devices.count && release.servingDevices <= release.devices.count,
                  "more devices meeting 404s or serving than reported")
    }
    return 0
}

/// The index just past the first `needle` in `haystack`.
private func end(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return start + needle.count
    }
    return nil
}

@main
enum FuzzFleetLogMain {
    static func main() { runFuzzer(fuzzFleetLog) }
}
