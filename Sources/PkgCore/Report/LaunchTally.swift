import FoundationEssentials
import Glibc

/// What the launches of one package version came to on this device since it was switched in:
/// how many were clean and how many bad, by ``LaunchProblem/Reason``, with the last bad one's
/// evidence. Its size does not grow with the launches: counts and one problem.
///
/// Every process that embeds a resolver over a store adds its launches to
/// `ROOT/state/launches/NAME/VERSION.json` (``add(_:name:version:layout:)``, under
/// `ROOT/state/launches/lock`, so processes add up rather than overwrite). A trial by launches
/// (``LaunchTrialRule``) is settled from it (``PackageStore/settleLaunchTrial(_:)``), which
/// writes the ``verdict`` for `pkgctl update` to report. Switching a version in on trial starts
/// its tally afresh; `gc` removes it with the version.
public struct LaunchTally: Sendable, Hashable, Codable {
    /// A launch that ended with no problem.
    public var clean: Int
    /// Launches that ended with a problem.
    public var bad: Int
    /// Bad launches by ``LaunchProblem/Reason`` raw value.
    public var badByReason: [String: Int]
    /// The last bad launch's problem.
    public var lastProblem: LaunchProblem?
    /// The settled trial's verdict, once there is one.
    public var verdict: LaunchVerdict?

    /// An empty tally.
    public init(clean: Int = 0, bad: Int = 0, badByReason: [String: Int] = [:], lastProblem: LaunchProblem? = nil,
                verdict: LaunchVerdict? = nil) {
        self.clean = clean
        self.bad = bad
        self.badByReason = badByReason
        self.lastProblem = lastProblem
        self.verdict = verdict
    }

    /// Counts one launch: clean when `problem` is nil.
    mutating func count(_ problem: LaunchProblem?) {
        guard let problem else {
            clean = ServingSignals.capped(clean, 1)
            return
        }
        bad = ServingSignals.capped(bad, 1)
        badByReason[problem.reason.rawValue] = ServingSignals.capped(badByReason[problem.reason.rawValue] ?? 0, 1)
        lastProblem = problem
    }

    /// `ROOT/state/launches`.
    static func directory(_ layout: StoreLayout) -> String { layout.state + "/launches" }

    /// `ROOT/state/launches/NAME/VERSION.json`.
    static func file(_ layout: StoreLayout, name: String, version: String) -> String {
        directory(layout) + "/" + name + "/" + version + ".json"
    }

    /// Counts one launch of the version in the store; nothing once the version has a verdict.
    static func add(_ problem: LaunchProblem?, name: String, version: String, layout: StoreLayout) throws {
        try update(name: name, version: version, layout: layout) { tally in
            guard tally.verdict == nil else { return false }
            tally.count(problem)
            return true
        }
    }

    /// Changes the version's tally under the lock every writer takes; `change` returns whether
    /// it changed anything (nothing is written otherwise).
    static func update(name: String, version: String, layout: StoreLayout,
                       _ change: (inout LaunchTally) throws -> Bool) throws {
        let path = file(layout, name: name, version: version)
        try FileSystem.makeDirectories(PathName.parent(path))
        let lock = try StoreLock(path: directory(layout) + "/lock")
        defer { withExtendedLifetime(lock) {} }
        var tally = try read(path) ?? LaunchTally()
        if try change(&tally) { try StateFile.save(tally, to: path) }
    }

    /// The version's tally; nil when it has none.
    static func read(name: String, version: String, layout: StoreLayout) throws -> LaunchTally? {
        try read(file(layout, name: name, version: version))
    }

    /// Every version's tally, by package then version.
    static func all(_ layout: StoreLayout) -> [(name: String, version: String, tally: LaunchTally)] {
        let root = directory(layout)
        var found: [(String, String, LaunchTally)] = []
        for name in ((try? FileSystem.contents(of: root)) ?? []).sorted() where FileSystem.isDirectory(root + "/" + name) {
            for file in ((try? FileSystem.contents(of: root + "/" + name)) ?? []).sorted()
            where file.hasSuffix(".json") && !file.hasPrefix(".") {
                if let tally = try? read(root + "/" + name + "/" + file) {
                    found.append((name, String(file.dropLast(5)), tally))
                }
            }
        }
        return found
    }

    /// Forgets a version's tally (its version was removed, or it starts a new trial), under the writers' lock.
    static func remove(name: String, version: String, layout: StoreLayout) throws {
        let path = file(layout, name: name, version: version)
        guard FileSystem.exists(path) else { return }
        let lock = try StoreLock(path: directory(layout) + "/lock")
        defer { withExtendedLifetime(lock) {} }
        if unlink(path) != 0, errno != ENOENT { throw fileSystemError("unlink", path) }
        rmdir(PathName.parent(path))  // when it was the package's last
    }

    private static func read(_ path: String) throws -> LaunchTally? {
        try StateFile.load(LaunchTally.self, from: path, what: "launch tally")
    }
}
