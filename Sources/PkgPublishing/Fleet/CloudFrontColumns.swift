import PkgCore

/// Where a CloudFront standard log keeps a request's path and query. The log is in the
/// W3C extended format: tab-separated fields in the order a `#Fields:` line names them
/// (`#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem ...
/// cs-uri-query ...`), a file holding one or more blocks each headed so. The path is in
/// `cs-uri-stem`, the query apart in `cs-uri-query` (`-` when there is none).
///
/// CloudFront URL-encodes field values once more (RFC 1738: `%` as `%25`, spaces, controls,
/// `"`, `<`, ... and bytes from 127 up), so a query the device sent as `r=2.0.0%2Bb` is logged
/// as `r=2.0.0%252Bb`, and a literal `%` (`%25`) as `%2525`: that one layer is undone before
/// the query is read.
struct CloudFrontColumns: Sendable, Hashable {
    /// The column of `cs-uri-stem`, from 0.
    let stem: Int
    /// The column of `cs-uri-query`, from 0.
    let query: Int
    /// The columns of `date` and `time` (UTC), when named.
    let date: Int?, time: Int?

    /// The columns a `#Fields:` line names; nil when it does not name both.
    init?(fields line: UnsafeBufferPointer<UInt8>) {
        guard line.starts(with: Self.directive.utf8) else { return nil }
        let names = line.dropFirst(Self.directive.utf8.count)
            .split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") })
        guard let stem = names.firstIndex(where: { $0.elementsEqual("cs-uri-stem".utf8) }),
              let query = names.firstIndex(where: { $0.elementsEqual("cs-uri-query".utf8) }) else { return nil }
        self.stem = stem
        self.query = query
        date = names.firstIndex(where: { $0.elementsEqual("date".utf8) })
        time = names.firstIndex(where: { $0.elementsEqual("time".utf8) })
    }

    /// The directive of the line naming the fields.
    static let directive = "#Fields:"

    /// Reads a data line: a request for `.../report/v1` with a query is a report, its query
    /// decoded once (into `scratch`) and handed to `tally`; one whose line was cut inside the
    /// query (longer than ``FleetTally/lineLimit``) is unreadable; other lines are skipped.
    func read(_ line: UnsafeBufferPointer<UInt8>, into tally: inout FleetTally, scratch: inout [UInt8]) {
        guard line.offset(after: "/report/v1") != nil,
              let stemRange = field(stem, of: line), let queryRange = field(query, of: line),
              line[stemRange].count >= Self.reportPath.count,
              line[stemRange].suffix(Self.reportPath.count).elementsEqual(Self.reportPath) else { return }
        let value = UnsafeBufferPointer(rebasing: line[queryRange])
        if value.count == 1, value[0] == UInt8(ascii: "-") { return }  // no query: not a report
        if queryRange.upperBound == line.count, line.count > FleetTally.lineLimit {
            tally.addUnreadable()
            return
        }
        Self.decodeOnce(value, into: &scratch)
        var when: Double?
        if let date, let time, let day = field(date, of: line), let clock = field(time, of: line) {
            when = LogTimestamp.w3c(date: UnsafeBufferPointer(rebasing: line[day]), time: UnsafeBufferPointer(rebasing: line[clock]))
        }
        let path = UnsafeBufferPointer(rebasing: line[stemRange.lowerBound..<(stemRange.upperBound - Self.reportPath.count)])
        scratch.withUnsafeBufferPointer { tally.add(query: $0, channel: FleetChannel(path: path), time: when) }
    }

    /// The bytes of column `index` of a tab-separated line; nil when it has fewer columns.
    private func field(_ index: Int, of line: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = 0, column = 0
        for position in 0...line.count where position == line.count || line[position] == UInt8(ascii: "\t") {
            if column == index { return start..<position }
            column += 1
            start = position + 1
        }
        return nil
    }

    /// `value` with each `%XX` made the byte it stands for; a `%` not followed by two hex
    /// digits is kept (the query then does not read).
    private static func decodeOnce(_ value: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        var index = 0
        while index < value.count {
            if value[index] == UInt8(ascii: "%"), index + 2 < value.count,
               let high = hexValue(value[index + 1]), let low = hexValue(value[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(value[index])
                index += 1
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static let reportPath = Array("/report/v1".utf8)
}
