import FuzzSupport
import PkgCore
import PkgPublishing

/// `FleetTally.add(line:)` over access-log lines, and `OutcomeReport(query:)` over what follows
/// `/report/v1?` in them. Every line is either skipped, counted as a report or counted as
/// unreadable, never both; a query that reads gives a report whose own `query` reads back equal,
/// with every field printable ASCII within the field limit and counts not negative; a tally's
/// rates (failures, 404s inside the app) stay within 0...1.
///
/// The same lines through `ReportLogReader` (CloudFront `#Fields:` blocks, Logpush JSON lines):
/// each line counted at most once, a line not starting with `{` only when it holds `/report/v1`,
/// and the same bounds on the tally. Every channel's name is its path without slashes at its ends,
/// and every curve of devices over time stays at or above 0. An input starting with gzip's magic number goes through
/// `GzipReader` whole and in pieces of 1 to 8 bytes: the same bytes out, and the same verdict.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFleetLog(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput(data, size)
    var tally = FleetTally()
    tally.timeline = FleetTimeline()
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
    checkBounds(tally)
    checkReportLogReader(input.bytes)
    if input.bytes.starts(with: [0x1f, 0x8b]) { checkGzip(input.bytes) }
    return 0
}

/// `ReportLogReader` over the input's lines: at most one count a line, and only for a report request.
private func checkReportLogReader(_ bytes: [UInt8]) {
    var tally = FleetTally()
    var reader = ReportLogReader()
    for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        let before = tally.reports + tally.unreadable
        let copy = Array(line)
        copy.withUnsafeBufferPointer { reader.read(line: $0, into: &tally) }
        let counted = tally.reports + tally.unreadable - before
        fuzzCheck(counted <= 1, "one line counted \(counted) times by the reader")
        if counted == 1, copy.first != UInt8(ascii: "{") {
            fuzzCheck(end(of: Array("/report/v1".utf8), in: copy) != nil,
                      "a line without /report/v1 was counted: \(String(decoding: copy.prefix(200), as: UTF8.self).debugDescription)")
        }
    }
    checkBounds(tally)
}

/// Inflated whole and in pieces of 1 to 8 bytes (the size from the input's last byte): the
/// same output, and an error either both times or neither.
private func checkGzip(_ bytes: [UInt8]) {
    func inflate(pieceSize: Int) -> (output: [UInt8], failed: Bool) {
        var output: [UInt8] = []
        do {
            let reader = try GzipReader(what: "fuzz", outputSize: 4096)
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + pieceSize)
                try bytes[start..<end].withUnsafeBufferPointer { piece in
                    try reader.feed(piece) { output += $0 }
                }
                start = end
            }
            try reader.finish()
            return (output, false)
        } catch {
            return (output, true)
        }
    }
    let whole = inflate(pieceSize: bytes.count)
    let pieces = inflate(pieceSize: Int(bytes.last! % 8) + 1)
    fuzzCheck(whole.failed == pieces.failed, "whole: failed \(whole.failed), in pieces: failed \(pieces.failed)")
    if !whole.failed { fuzzCheck(whole.output == pieces.output, "whole and in pieces inflate to different bytes") }
}

/// Rates and intervals within 0...1, and no outcome with more devices than the release.
private func checkBounds(_ tally: FleetTally) {
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
        fuzzCheck(release.failedDevices + release.failuresCancelled <= release.triedDevices, "more failures than devices that tried")
        let name = release.channel.name
        fuzzCheck(!name.hasPrefix("/") && !name.hasSuffix("/"), "channel \(name.debugDescription) keeps a slash at an end")
    }
    // Devices where they are: never fewer than none, on any release at any time.
    let adoption = (tally.timeline ?? FleetTimeline()).adoption()
    for series in adoption.series {
        fuzzCheck(series.devices.count == adoption.buckets && series.devices.allSatisfy { $0 >= 0 },
                  "a curve below 0 or of the wrong length: \(series.devices.prefix(20))")
    }
    for package in FleetSummary(tally).packages {
        fuzzCheck((package.silentSinceNewest ?? 0) >= 0 && (package.silentSinceNewest ?? 0) <= (package.devicesNow ?? 0),
                  "silent devices \(String(describing: package.silentSinceNewest)) of \(String(describing: package.devicesNow))")
    }
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
