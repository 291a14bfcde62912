import Glibc
import PkgCore

/// A zip entry's MS-DOS date and time fields (two-second resolution, 1980–2107).
struct DOSTimestamp: Hashable, Sendable {
    let time: UInt16
    let date: UInt16

    /// 1980-01-01 00:00:00, the earliest time a zip can hold.
    static let epoch = DOSTimestamp(time: 0, date: (1 << 5) | 1)

    /// The time packed entries get: `SOURCE_DATE_EPOCH` (seconds since 1970,
    /// in UTC) when set, else ``epoch``. Throws `.invalidArgument` when the
    /// variable is set but not a number.
    static func forPacking() throws -> DOSTimestamp {
        guard let text = getenv("SOURCE_DATE_EPOCH").map({ String(cString: $0) }), !text.isEmpty else {
            return epoch
        }
        guard let seconds = Int64(text) else {
            throw PkgError(.invalidArgument, "SOURCE_DATE_EPOCH '\(text)' is not a number of seconds")
        }
        return DOSTimestamp(utcSeconds: seconds)
    }

    init(time: UInt16, date: UInt16) {
        self.time = time
        self.date = date
    }

    /// The UTC time `seconds` after 1970, clamped to the years a zip can hold.
    init(utcSeconds seconds: Int64) {
        var clock = time_t(clamping: seconds)
        var parts = tm()
        guard gmtime_r(&clock, &parts) != nil, parts.tm_year + 1900 >= 1980 else {
            self = Self.epoch
            return
        }
        if parts.tm_year + 1900 > 2107 {
            self.init(time: (23 << 11) | (59 << 5) | 29, date: (127 << 9) | (12 << 5) | 31)
            return
        }
        let time = (parts.tm_hour << 11) | (parts.tm_min << 5) | (min(parts.tm_sec, 59) / 2)
        let date = ((parts.tm_year + 1900 - 1980) << 9) | ((parts.tm_mon + 1) << 5) | parts.tm_mday
        self.init(time: UInt16(time), date: UInt16(date))
    }
}
