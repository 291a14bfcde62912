import Glibc

/// HTTP dates (RFC 9110 §5.6.7), written in their one preferred form, IMF-fixdate:
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
        func two(_ value: Int32) -> String { DecimalText.zeroPadded(value, width: 2) }
        // Four digits, as the form has them: year 44 is "0044".
        let year = DecimalText.zeroPadded(1900 + parts.tm_year, width: 4)
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(year) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    /// Seconds since the epoch of an HTTP date in any of the three forms a recipient
    /// must accept: IMF-fixdate, the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`,
    /// a two-digit year below 70 read as 20YY) and asctime (`Sun Nov  6 08:49:37 1994`);
    /// nil for anything else. Every number is plain ASCII digits (no sign); a date past
    /// the year 9999 (`31 Dec 9999 23:59:60`) is nil too.
    public static func parse(_ text: String) -> Int64? {
        func number(_ digits: Substring) -> Int32? {
            allASCIIDigits(digits.utf8) ? Int32(digits) : nil
        }
        let fields = text.split(separator: " ")
        let day: Substring, month: Substring, year: Int32, clock: Substring
        switch fields.count {
        case 6 where fields[0].count == 4 && fields[0].hasSuffix(",") && fields[5] == "GMT"
            && fields[1].count == 2 && fields[3].count == 4:
            guard let fullYear = number(fields[3]) else { return nil }
            (day, month, year, clock) = (fields[1], fields[2], fullYear, fields[4])
        case 4 where fields[0].hasSuffix(",") && fields[3] == "GMT":
            let date = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3, date[0].count == 2, date[2].count == 2, let shortYear = number(date[2]) else { return nil }
            (day, month, year, clock) = (date[0], date[1], shortYear + (shortYear < 70 ? 2000 : 1900), fields[2])
        case 5 where fields[0].count == 3 && fields[4].count == 4:
            guard let fullYear = number(fields[4]) else { return nil }
            (day, month, year, clock) = (fields[2], fields[1], fullYear, fields[3])
        default:
            return nil
        }
        let time = clock.split(separator: ":")
        guard (1...2).contains(day.count), let dayOfMonth = number(day),
              let monthIndex = months.firstIndex(where: { $0 == month }),
              time.count == 3, time.allSatisfy({ $0.count == 2 }),
              let hour = number(time[0]), let minute = number(time[1]), let second = number(time[2]),
              (1...31).contains(dayOfMonth), hour < 24, minute < 60, second < 61 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(monthIndex)
        parts.tm_mday = dayOfMonth
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = Int64(timegm(&parts))
        return seconds <= Int64(InternetDate.latest) ? seconds : nil
    }
}
