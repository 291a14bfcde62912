import FoundationEssentials
import Glibc

/// A daily span of local time in which ``Updater`` may switch a package to a new version
/// (`02:00-04:00`; `22:00-02:00` runs across midnight). Outside every window a new version
/// is still downloaded, verified and installed, but waits (``UpdateReport/Action/pending``)
/// until a run inside one, unless its release is ``ManifestEntry/critical``.
public struct ActivationWindow: Sendable, Hashable, CustomStringConvertible {
    /// Minutes after local midnight the window opens, 0 to 1439.
    public let start: Int
    /// Minutes after local midnight it closes (not included), 0 to 1440; below `start`: the next day.
    public let end: Int

    /// The window `HH:MM-HH:MM` (24-hour local time; `24:00` may end one); nil when the text is
    /// not one, or opens and closes at the same minute.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Self.minutes(parts[0]), let end = Self.minutes(parts[1]),
              start < 1440, start != end else { return nil }
        self.start = start
        self.end = end
    }

    /// Whether the window holds `minute` minutes after local midnight.
    public func contains(minuteOfDay minute: Int) -> Bool {
        start < end ? (start <= minute && minute < end) : (minute >= start || minute < end)
    }

    /// Whether any of `windows` holds the local time of `date`.
    public static func anyContains(_ windows: [ActivationWindow], _ date: Date) -> Bool {
        let minute = minuteOfDay(date)
        return windows.contains { $0.contains(minuteOfDay: minute) }
    }

    /// Minutes after local midnight at `date`, in the process's time zone (`TZ`).
    static func minuteOfDay(_ date: Date) -> Int {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
    }

    public var description: String { Self.text(start) + "-" + Self.text(end) }

    private static func minutes(_ text: Substring) -> Int? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 2, fields.allSatisfy({ $0.utf8.count == 2 && allASCIIDigits($0.utf8) }),
              let hours = Int(fields[0]), let minutes = Int(fields[1]), minutes < 60,
              hours < 24 || (hours == 24 && minutes == 0) else { return nil }
        return hours * 60 + minutes
    }

    private static func text(_ minutes: Int) -> String {
        let hours = minutes / 60, rest = minutes % 60
        return (hours < 10 ? "0" : "") + "\(hours):" + (rest < 10 ? "0" : "") + "\(rest)"
    }
}
