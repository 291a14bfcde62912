import PkgCore

/// Feeds one log file's lines to a ``FleetTally`` in whatever layout the file turns out to
/// have, told from the lines themselves (no flag):
///
/// - **CloudFront standard logs** (W3C extended, tab-separated): a `#Fields:` line gives the
///   columns of `cs-uri-stem` and `cs-uri-query` for the lines after it, up to the next one
///   (a file may hold several blocks); other `#` lines (`#Version:`) are skipped.
/// - **Cloudflare Logpush** (`http_requests`, one JSON object a line): a line starting with
///   `{` is read by its `ClientRequestURI` (a report when its path ends with `/report/v1`);
///   one without it is read like any line.
/// - **Any other line** (nginx `combined`, Fastly, Akamai, any format logging the request
///   target): ``FleetTally/add(line:)``.
///
/// A report request whose query was cut off (a line longer than ``FleetTally/lineLimit``) is
/// counted as unreadable, as in ``FleetTally/add(line:)``. With a ``FleetTally/timeline``, each
/// report's time is read too (``LogTimestamp``: nginx's `[$time_local]`, CloudFront's `date` and
/// `time`, Logpush's `EdgeStartTimestamp`); a report without one counts, but not over time.
/// Use one reader per file.
///
/// ```swift
/// var tally = FleetTally()
/// var reader = ReportLogReader()
/// for line in cloudFrontLog { reader.read(line: line, into: &tally) }
/// ```
public struct ReportLogReader: Sendable {
    /// The columns the last `#Fields:` line named; nil before one, or when it named not both.
    private var columns: CloudFrontColumns?
    /// A decoded query or URI, kept to spare an allocation a report.
    private var scratch: [UInt8] = []

    /// A reader at the start of a file.
    public init() {}

    /// Reads one line (without its newline) into `tally`.
    public mutating func read(line: UnsafeBufferPointer<UInt8>, into tally: inout FleetTally) {
        switch line.first {
        case UInt8(ascii: "#"):
            if line.starts(with: CloudFrontColumns.directive.utf8) { columns = CloudFrontColumns(fields: line) }
        case UInt8(ascii: "{"):
            readLogpush(line, into: &tally)
        default:
            if let columns {
                columns.read(line, into: &tally, scratch: &scratch)
            } else {
                tally.add(line: line)
            }
        }
    }

    private mutating func readLogpush(_ line: UnsafeBufferPointer<UInt8>, into tally: inout FleetTally) {
        let found = LogpushRequestURI.read(line, into: &scratch)
        guard found != .absent else {
            tally.add(line: line)
            return
        }
        // A report request: the path (up to the first `?`) ends with /report/v1.
        let reportPath = "/report/v1".utf8
        guard let mark = scratch.firstIndex(of: UInt8(ascii: "?")),
              scratch[..<mark].reversed().starts(with: reportPath.reversed()) else { return }
        if found == .cut {
            tally.addUnreadable()
        } else {
            let time = LogTimestamp.logpush(line)
            scratch.withUnsafeBufferPointer {
                let channel = FleetChannel(path: UnsafeBufferPointer(rebasing: $0[..<(mark - reportPath.count)]))
                tally.add(query: UnsafeBufferPointer(rebasing: $0[(mark + 1)...]), channel: channel, time: time)
            }
        }
    }
}
