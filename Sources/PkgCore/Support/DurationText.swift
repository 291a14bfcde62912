/// Durations as a person writes them in a flag or a config file: a number of
/// seconds, or a number followed by `s`, `m`, `h` or `d` (`90s`, `30m`, `1.5h`).
package enum DurationText {
    /// Seconds for `text`, or nil when it is not a non-negative, finite duration.
    package static func parse(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var scale = 1.0
        if let last = number.last, let unit = units[last] {
            scale = unit
            number = number.dropLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
              let value = Double(number), value.isFinite else { return nil }
        let seconds = value * scale
        return seconds.isFinite ? seconds : nil
    }

    /// `seconds` in the largest unit that divides it: `3600` → `1h`, `90` → `90s`, `1.5` → `1.5s`.
    package static func format(seconds: Double) -> String {
        for (unit, size) in [("d", 86_400.0), ("h", 3600), ("m", 60)] where seconds >= size && seconds.truncatingRemainder(dividingBy: size) == 0 {
            return "\(Int(seconds / size))\(unit)"
        }
        return DecimalText.tenths(seconds, droppingZeroTenth: true) + "s"
    }
}
