import PkgCore

/// The time of a log line, in seconds since 1970 (UTC), read from the layouts
/// ``ReportLogReader`` knows: nginx's `[25/Nov/2026:17:00:00 +0000]` (`$time_local`),
/// CloudFront's `date` and `time` columns (`2026-11-25`, `17:00:00`, UTC), and Logpush's
/// `EdgeStartTimestamp` (RFC 3339, or Unix seconds, milliseconds or nanoseconds, as the job's
/// `timestamps` option writes it). Anything else reads as nil.
enum LogTimestamp {
    /// The first `[dd/Mon/yyyy:HH:MM:SS ±hhmm]` in `line`.
    static func common(_ line: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let open = line.offset(after: "["), open + 26 < line.count, line[open + 26] == UInt8(ascii: "]") else {
            return nil
        }
        let text = UnsafeBufferPointer(rebasing: line[open..<(open + 26)])
        guard text[2] == UInt8(ascii: "/"), text[6] == UInt8(ascii: "/"), text[11] == UInt8(ascii: ":"),
              text[20] == UInt8(ascii: " "), text[21] == UInt8(ascii: "+") || text[21] == UInt8(ascii: "-"),
              let day = number(text, 0, 2), let year = number(text, 7, 4),
              let month = months.firstIndex(where: { $0.elementsEqual(text[3..<6]) }),
              let clock = clock(text, 12), let zone = number(text, 22, 4) else { return nil }
        let offset = Double(zone / 100 * 3600 + zone % 100 * 60) * (text[21] == UInt8(ascii: "-") ? -1 : 1)
        return days(year: year, month: month + 1, day: day) * 86_400 + clock - offset
    }

    /// CloudFront's `date` (`2026-11-25`) and `time` (`17:00:00`) columns, UTC.
    static func w3c(date: UnsafeBufferPointer<UInt8>, time: UnsafeBufferPointer<UInt8>) -> Double? {
        guard date.count == 10, let day = calendarDay(date, 0), time.count >= 8, let clock = clock(time, 0) else { return nil }
        return day * 86_400 + clock
    }

    /// The `EdgeStartTimestamp` of a Logpush line: a string in RFC 3339 (`2026-11-25T17:00:00Z`,
    /// fractions and offsets allowed) or a number (seconds, milliseconds or nanoseconds).
    static func logpush(_ line: UnsafeBufferPointer<UInt8>) -> Double? {
        guard var index = line.offset(after: "\"EdgeStartTimestamp\"") else { return nil }
        while index < line.count, [UInt8(ascii: " "), UInt8(ascii: ":")].contains(line[index]) { index += 1 }
        guard index < line.count else { return nil }
        if line[index] == UInt8(ascii: "\"") {
            let text = UnsafeBufferPointer(rebasing: line[(index + 1)...])
            guard text.count >= 20, let day = calendarDay(text, 0), text[10] == UInt8(ascii: "T"),
                  let clock = clock(text, 11) else { return nil }
            var zoneAt = 19
            while zoneAt < text.count, text[zoneAt] == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[zoneAt]) {
                zoneAt += 1
            }
            guard zoneAt < text.count else { return nil }
            var offset = 0.0
            if text[zoneAt] == UInt8(ascii: "+") || text[zoneAt] == UInt8(ascii: "-") {
                guard let hours = number(text, zoneAt + 1, 2), let minutes = number(text, zoneAt + 4, 2) else { return nil }
                offset = Double(hours * 3600 + minutes * 60) * (text[zoneAt] == UInt8(ascii: "-") ? -1 : 1)
            } else if text[zoneAt] != UInt8(ascii: "Z") {
                return nil
            }
            return day * 86_400 + clock - offset
        }
        var value = 0.0, digits = 0
        while index < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]), digits < 20 {
            value = value * 10 + Double(line[index] - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        guard digits > 0 else { return nil }
        return value >= 1e17 ? value / 1e9 : value >= 1e11 ? value / 1e3 : value
    }

    /// `yyyy-mm-dd` at `at`, as days since 1970.
    private static func calendarDay(_ text: UnsafeBufferPointer<UInt8>, _ at: Int) -> Double? {
        guard text.count >= at + 10, text[at + 4] == UInt8(ascii: "-"), text[at + 7] == UInt8(ascii: "-"),
              let year = number(text, at, 4), let month = number(text, at + 5, 2), let day = number(text, at + 8, 2),
              (1...12).contains(month) else { return nil }
        return days(year: year, month: month, day: day)
    }

    /// `HH:MM:SS` at `at`, as seconds into the day.
    private static func clock(_ text: UnsafeBufferPointer<UInt8>, _ at: Int) -> Double? {
        guard text.count >= at + 8, text[at + 2] == UInt8(ascii: ":"), text[at + 5] == UInt8(ascii: ":"),
              let hours = number(text, at, 2), let minutes = number(text, at + 3, 2), let seconds = number(text, at + 6, 2),
              hours < 24, minutes < 60, seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60 + seconds)
    }

    /// The decimal number in the `count` bytes at `at`; nil when one is not a digit.
    private static func number(_ text: UnsafeBufferPointer<UInt8>, _ at: Int, _ count: Int) -> Int? {
        guard at >= 0, at + count <= text.count else { return nil }
        var value = 0
        for byte in text[at..<(at + count)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func days(year: Int, month: Int, day: Int) -> Double {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Double(era * 146_097 + dayOfEra - 719_468)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].map { Array($0.utf8) }
}
