/// Numbers as short human-readable text, without Foundation's ICU-backed formatters.
package enum DecimalText {
    /// `value` (not negative) rounded to tenths: `1.25` → `1.3`; a whole number keeps its
    /// `.0` unless `droppingZeroTenth`, where `20.0` → `20`.
    package static func tenths(_ value: Double, droppingZeroTenth: Bool = false) -> String {
        guard value.isFinite else { return "\(value)" }
        let tenths = Int((value * 10).rounded())
        if droppingZeroTenth, tenths % 10 == 0 { return "\(tenths / 10)" }
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `value` (not negative) in at least `width` digits, zeros in front: `7` → `07`, year 44 → `0044`.
    package static func zeroPadded(_ value: Int32, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
