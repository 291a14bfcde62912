import PkgCore

/// What `update` prints for a run without `--json`: a line per package that has something to
/// say (installed, held, left out of a rollout, …) and per version removed; "manifest not
/// modified" for a 304.
enum UpdateSummary {
    /// The lines for `report`, in order.
    static func lines(_ report: UpdateReport) -> [String] {
        var lines: [String] = []
        if report.manifest == .notModified, report.reverted.isEmpty {
            lines.append("manifest not modified; nothing to do")
        }
        for outcome in report.packages {
            // What a rollout leaving this device out adds to the line, in its parentheses.
            let rollingOut = outcome.rollingOut.map(\.sentence)
            switch outcome.action {
            case .installed:
                lines.append("\(outcome.name): installed \(outcome.to)" + Self.parenthesized([rollingOut]))
            case .upgraded, .downgraded:
                lines.append("\(outcome.name): \(outcome.from ?? "-") -> \(outcome.to)"
                          + Self.parenthesized([outcome.action.rawValue, rollingOut]))
            case .republished:
                lines.append("\(outcome.name): \(outcome.from ?? "-") -> \(outcome.to)"
                          + Self.parenthesized(["re-published; reinstalled", rollingOut]))
            case .unchanged: lines.append("\(outcome.name): \(outcome.to) is up to date" + Self.parenthesized([rollingOut]))
            case .held:
                lines.append("\(outcome.name): \(outcome.to) is held back; \(outcome.from ?? "no version") stays active "
                          + "(pkgctl unhold \(outcome.name) allows it)")
            case .staged:
                lines.append("\(outcome.name): " + (rollingOut ?? "\(outcome.to) is rolling out; this device is not in it yet"))
            case .pending:
                lines.append("\(outcome.name): \(outcome.to) is installed and waits for an activation window; "
                          + "\(outcome.from ?? "no version") stays active")
            case .withdrawn:
                lines.append("\(outcome.name): \(outcome.to) is revoked; nothing installed")
            case .revoked:
                lines.append("\(outcome.name): \(outcome.from ?? "-") was revoked; switched back to \(outcome.to)")
            case .incompatible:
                lines.append(outcome.detail ?? "\(outcome.name): no release fits this runtime")
                continue
            case .failed, .rolledBack: break
            }
            if let detail = outcome.detail { lines.append(detail) }
        }
        for removed in report.removed { lines.append("removed \(removed)") }
        return lines
    }

    /// " (A; B)" of the notes given, or nothing when there are none.
    private static func parenthesized(_ notes: [String?]) -> String {
        let notes = notes.compactMap { $0 }
        return notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }
}
