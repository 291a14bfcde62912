#if canImport(Glibc)
import Glibc
#endif

/// HTTP dates (RFC 9110 §5.6.7) in their one preferred form, IMF-fixdate:
/// `Sun, 06 Nov 1994 08:49:37 GMT`. Hand-written because it runs per response
/// and Foundation's formatters cost microseconds and pull in ICU.
public enum HTTPDate {
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the epoch as an IMF-fixdate.
    public static func format(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(1900 + parts.tm_year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since the epoch of an IMF-fixdate; nil for anything else (the
    /// obsolete RFC 850 and asctime forms included: a condition that cannot be
    /// read is ignored, which only costs a full answer).
    public static func parse(_ text: String) -> Int64? {
        let fields = text.split(separator: " ")
        guard fields.count == 6, fields[0].count == 4, fields[0].hasSuffix(","), fields[5] == "GMT",
              let day = Int32(fields[1]), fields[1].count == 2,
              let month = months.firstIndex(where: { $0 == fields[2] }),
              let year = Int32(fields[3]), fields[3].count == 4 else { return nil }
        let clock = fields[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int32(clock[0]), let minute = Int32(clock[1]), let second = Int32(clock[2]),
              (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int64(timegm(&parts))
    }
}
