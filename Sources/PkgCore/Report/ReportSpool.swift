import FoundationEssentials
import Glibc

/// Outcome reports waiting for the origin, in the store (`ROOT/state/reports/`, one file per
/// report holding its query), so a report made while the origin is unreachable is sent by a
/// later run. At most ``limit`` wait; past it the oldest are dropped. It also remembers the
/// last outcome reported per package, and the last signals per version (`last.json`), so an
/// outcome that stays the same from run to run (a held or staged release, signals that did not
/// grow) is reported once. Used under the store's lock.
struct ReportSpool {
    let directory: String

    /// Most reports kept waiting.
    static let limit = 256
    private static let suffix = ".report"

    init(layout: StoreLayout) {
        directory = layout.reports
    }

    /// Adds the reports that differ from the last one made for their package; drops the
    /// oldest waiting ones past ``limit``.
    func add(_ reports: [OutcomeReport]) throws {
        guard !reports.isEmpty else { return }
        try FileSystem.makeDirectories(directory)
        var last = try lastReported()
        // Named by a number one past the newest waiting: the order holds whatever the clock does.
        var sequence = (try waiting().last.flatMap { UInt64($0.dropLast(Self.suffix.count)) } ?? 0) + 1
        let fresh = reports.filter { report in
            let key = [report.outcome.rawValue, report.release, report.cause ?? "", report.errorCode ?? "",
                       report.notFound.map(String.init) ?? "", report.originFallbacks.map(String.init) ?? ""]
                .joined(separator: " ")
            let slot = Self.slot(of: report)
            guard last[slot] != key else { return false }
            last[slot] = key
            return true
        }
        // New serving totals supersede the waiting ones of their release, which would only
        // crowd other outcomes out of the bound.
        let superseding = Set(fresh.filter { $0.outcome == .serving }.map(Self.slot(of:)))
        if !superseding.isEmpty {
            for (file, query) in try pending() {
                guard let waiting = OutcomeReport(query: Substring(query)), waiting.outcome == .serving,
                      superseding.contains(Self.slot(of: waiting)) else { continue }
                unlink(file)
            }
        }
        for report in fresh {
            let order = String(sequence)
            let name = String(repeating: "0", count: max(0, 20 - order.count)) + order + Self.suffix
            try FileSystem.writeAtomically(Array(report.query.utf8), to: directory + "/" + name)
            sequence += 1
        }
        try FileSystem.writeAtomically(try JSONEncoder().encode(last), to: directory + "/last.json")
        let all = try waiting()
        for name in all.prefix(max(0, all.count - Self.limit)) { unlink(directory + "/" + name) }
    }

    /// Where `last.json` remembers `report`: its package, or for serving totals `PACKAGE RELEASE`
    /// (a version's signals are remembered apart from its package's outcome, which they do not replace).
    private static func slot(of report: OutcomeReport) -> String {
        report.outcome == .serving ? report.package + " " + report.release : report.package
    }

    /// Forgets the last signals reported of the versions `isGone` says were removed, so
    /// `last.json` holds the installed versions' only.
    func forgetSignals(where isGone: (_ package: String, _ release: String) -> Bool) throws {
        var last = try lastReported()
        let gone = last.keys.filter { slot in
            let parts = slot.split(separator: " ")
            return parts.count == 2 && isGone(String(parts[0]), String(parts[1]))
        }
        guard !gone.isEmpty else { return }
        for slot in gone { last[slot] = nil }
        try FileSystem.writeAtomically(try JSONEncoder().encode(last), to: directory + "/last.json")
    }

    /// The reports waiting, oldest first, with the file each is in.
    func pending() throws -> [(file: String, query: String)] {
        try waiting().compactMap { name in
            let file = directory + "/" + name
            guard let bytes = try FileSystem.read(file) else { return nil }
            return (file, String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Forgets a report that reached the origin.
    func delivered(_ file: String) {
        unlink(file)
    }

    /// The waiting reports' names, oldest first; not a report a killed run was still writing
    /// (`FileSystem.writeAtomically`'s temporary file, which `PackageStore.recover` removes).
    private func waiting() throws -> [String] {
        try FileSystem.contents(of: directory)
            .filter { $0.hasSuffix(Self.suffix) && !$0.hasPrefix(FileSystem.temporaryPrefix) }.sorted()
    }

    private func lastReported() throws -> [String: String] {
        guard let bytes = try FileSystem.read(directory + "/last.json") else { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(bytes))) ?? [:]
    }
}
