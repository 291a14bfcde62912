/// Why one launch of a package version was bad: the evidence a trial by launches reverts on.
public struct LaunchProblem: Sendable, Hashable, Codable {
    /// The kind of problem.
    public enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        /// The page asked for a script or stylesheet under the version's routes that the version lacks.
        case missingFile
        /// A navigation under the version's routes that the version has no page for (no file, no SPA fallback).
        case noPage
        /// The host reported a failure it alone can see (a page error, a render deadline missed).
        case host
    }

    /// The kind of problem.
    public var reason: Reason
    /// For ``Reason/missingFile``: how many requests of the launch named a file the version lacks.
    public var missingCount: Int
    /// The first paths the launch missed (at most ``pathLimit``), or the page `noPage` could not answer.
    public var paths: [String]
    /// For ``Reason/host``: the host's words, at most ``detailLimit`` bytes.
    public var detail: String?

    /// Paths kept as evidence.
    static let pathLimit = 4
    /// Bytes of a host's reason kept.
    static let detailLimit = 200

    /// A problem of the given kind; paths and detail are cut to their limits.
    public init(reason: Reason, missingCount: Int = 0, paths: [String] = [], detail: String? = nil) {
        self.reason = reason
        self.missingCount = missingCount
        self.paths = paths.prefix(Self.pathLimit).map { Self.cut($0, to: 512) }
        self.detail = detail.map { Self.cut($0, to: Self.detailLimit) }
    }

    /// The first `limit` bytes of `text`'s UTF-8; a character cut in two ends it as U+FFFD (a path so cut was empty before).
    private static func cut(_ text: String, to limit: Int) -> String {
        String(decoding: text.utf8.prefix(limit), as: UTF8.self)
    }

    /// The problem in a few words, for `status` and errors: `2 missing files (/app/a.js, ...)`.
    public var summary: String {
        switch reason {
        case .missingFile:
            let count = max(missingCount, paths.count)
            return "\(count) missing file\(count == 1 ? "" : "s") (\(paths.joined(separator: ", "))\(count > paths.count ? ", ..." : ""))"
        case .noPage: return "no page for \(paths.first ?? "the navigation")"
        case .host: return "the host reported: \(detail ?? "a failure")"
        }
    }
}
