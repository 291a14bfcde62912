import FoundationEssentials
import Glibc

/// The times in pkgctl's JSON (manifests, timestamps, roots, state files) and messages:
/// RFC 3339 in UTC, whole seconds, `2026-12-23T16:51:04Z`, as `JSONEncoder`'s `.iso8601`
/// writes them. Hand-written because Foundation's ISO 8601 style builds a Gregorian calendar
/// and the current time zone before its first date: 1.6 M instructions of every poll.
package enum InternetDate {
    /// `date` in UTC, its fraction of a second dropped (toward the past, as `.iso8601` does);
    /// a date outside the years ``parse(_:)`` reads is written as the nearest one inside them.
    package static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        var time = time_t(seconds.isNaN ? 0 : min(max(seconds, earliest), latest))
        var parts = tm()
        gmtime_r(&time, &parts)
        func digits(_ value: Int32, _ width: Int) -> String { DecimalText.zeroPadded(value, width: width) }
        return "\(digits(1900 + parts.tm_year, 4))-\(digits(parts.tm_mon + 1, 2))-\(digits(parts.tm_mday, 2))"
            + "T\(digits(parts.tm_hour, 2)):\(digits(parts.tm_min, 2)):\(digits(parts.tm_sec, 2))Z"
    }

    /// The second `text` names: `YYYY-MM-DDTHH:MM:SS`, a fraction of a second (dropped, as
    /// ``format(_:)`` drops it), then `Z` or an offset `±HH:MM`, `±HHMM` or `±HH` of at most 18
    /// hours; a real day of the years 1583 to 9999 (where the proleptic Gregorian calendar is
    /// the calendar) whose instant, in UTC, is in those years too; second 60 read as the next
    /// minute's first. Nil for anything else.
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var zone = 19
        if bytes.count > zone, bytes[zone] == UInt8(ascii: ".") {
            zone += 1
            while zone < bytes.count, allASCIIDigits(bytes[zone ... zone]) { zone += 1 }
            guard zone > 20 else { return nil }
        }
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
              let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
              (1583...9999).contains(year), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day),
              hour < 24, minute < 60, second <= 60, let offset = offsetSeconds(bytes[zone...]) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = Double(Int64(timegm(&parts)) - Int64(offset))
        return (earliest...latest).contains(seconds) ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// 1583-01-01T00:00:00Z, and 9999-12-31T23:59:59Z: the last second with a four-digit year
    /// (HTTP dates end there too).
    private static let earliest: Double = -12_212_553_600
    static let latest: Double = 253_402_300_799

    /// Dates in JSON as ``parse(_:)`` reads them.
    package static let decoding = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let container = try decoder.singleValueContainer()
        guard let date = parse(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected date string to be ISO8601-formatted.")
        }
        return date
    }

    /// Dates in JSON as ``format(_:)`` writes them; a date it cannot write (past 9999, or
    /// before 1583) is an error rather than another date.
    package static let encoding = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        guard (earliest...latest).contains(date.timeIntervalSince1970.rounded(.down)) else {
            throw EncodingError.invalidValue(date, .init(codingPath: encoder.codingPath,
                                                         debugDescription: "\(date) is outside the years 1583 to 9999"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(format(date))
    }

    /// The zone designator's offset east of UTC in seconds: `Z`, `±HH:MM`, `±HHMM` or `±HH`,
    /// at most 18 hours either way (as Foundation reads them; the Earth's zones span −12 to +14).
    private static func offsetSeconds(_ zone: ArraySlice<UInt8>) -> Int? {
        let zone = Array(zone)
        if zone == [UInt8(ascii: "Z")] { return 0 }
        guard (zone.count == 6 && zone[3] == UInt8(ascii: ":")) || zone.count == 5 || zone.count == 3,
              zone[0] == UInt8(ascii: "+") || zone[0] == UInt8(ascii: "-"),
              let hours = number(zone, 1, 2), let minutes = zone.count == 3 ? 0 : number(zone, zone.count - 2, 2),
              minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        guard seconds <= 18 * 3600 else { return nil }
        return zone[0] == UInt8(ascii: "+") ? seconds : -seconds
    }

    /// The ASCII digits `bytes[start..<start + count]` as a number; nil when any is not a digit.
    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        let digits = bytes[start ..< start + count]
        guard allASCIIDigits(digits) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
