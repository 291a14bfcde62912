import FoundationEssentials
import Glibc

/// What the resolvers serving one package version saw go wrong under its routes since it was
/// activated: requests the origin answered 404 or 410 (a link the release ships that leads
/// nowhere: "404s inside the app"), and requests the version lacked that went to the origin.
///
/// Every process that embeds a resolver over a store (the app, `pkgctl serve`) adds its counts
/// to `ROOT/state/signals/NAME/VERSION.json` (``add(_:name:version:layout:)``, under
/// `ROOT/state/signals/lock`, so processes add up rather than overwrite); `pkgctl update` reads
/// them and reports the totals of a version when they grew (``OutcomeReport/Outcome/serving``).
/// `gc` removes the file with its version.
public struct ServingSignals: Sendable, Hashable, Codable {
    /// Requests under the version's routes that the origin answered 404 or 410.
    public var notFound: Int
    /// Requests under the version's routes that the version lacked and the origin was asked for.
    public var originFallbacks: Int

    /// Counts of the given values.
    public init(notFound: Int = 0, originFallbacks: Int = 0) {
        self.notFound = notFound
        self.originFallbacks = originFallbacks
    }

    /// Whether nothing was counted.
    public var isEmpty: Bool { notFound == 0 && originFallbacks == 0 }

    /// `ROOT/state/signals`.
    static func directory(_ layout: StoreLayout) -> String { layout.state + "/signals" }

    /// `ROOT/state/signals/NAME/VERSION.json`.
    static func file(_ layout: StoreLayout, name: String, version: String) -> String {
        directory(layout) + "/" + name + "/" + version + ".json"
    }

    /// Adds `counts` to the version's totals in the store.
    static func add(_ counts: ServingSignals, name: String, version: String, layout: StoreLayout) throws {
        guard !counts.isEmpty else { return }
        let path = file(layout, name: name, version: version)
        // One level at a time under the store's state folder, never that folder itself: a flush still
        // pending when its store was removed fails (ENOENT) rather than make the store again.
        try FileSystem.makeDirectory(directory(layout))
        try FileSystem.makeDirectory(PathName.parent(path))
        let lock = try StoreLock(path: directory(layout) + "/lock")
        defer { withExtendedLifetime(lock) {} }
        var total = read(path) ?? ServingSignals()
        total.notFound = capped(total.notFound, counts.notFound)
        total.originFallbacks = capped(total.originFallbacks, counts.originFallbacks)
        try FileSystem.writeAtomically(try JSONEncoder().encode(total), to: path)
    }

    /// Highest total kept: 18 digits, what a report's count may have.
    static let countLimit = 999_999_999_999_999_999

    /// `a + b`, at most ``countLimit``.
    package static func capped(_ a: Int, _ b: Int) -> Int {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? countLimit : min(sum, countLimit)
    }

    /// The totals of every version that has any, by package then version.
    static func all(_ layout: StoreLayout) -> [(name: String, version: String, signals: ServingSignals)] {
        let root = directory(layout)
        var found: [(String, String, ServingSignals)] = []
        for name in ((try? FileSystem.contents(of: root)) ?? []).sorted() where FileSystem.isDirectory(root + "/" + name) {
            for file in ((try? FileSystem.contents(of: root + "/" + name)) ?? []).sorted()
            where file.hasSuffix(".json") && !file.hasPrefix(".") {
                if let signals = read(root + "/" + name + "/" + file), !signals.isEmpty {
                    found.append((name, String(file.dropLast(5)), signals))
                }
            }
        }
        return found
    }

    /// Forgets a version's totals (its version was removed), under the lock a flush takes.
    static func remove(name: String, version: String, layout: StoreLayout) {
        let path = file(layout, name: name, version: version)
        guard FileSystem.exists(path), let lock = try? StoreLock(path: directory(layout) + "/lock") else { return }
        defer { withExtendedLifetime(lock) {} }
        unlink(path)
        rmdir(PathName.parent(path))  // when it was the package's last
    }

    private static func read(_ path: String) -> ServingSignals? {
        guard let bytes = try? FileSystem.read(path) else { return nil }
        return try? JSONDecoder().decode(ServingSignals.self, from: Data(bytes))
    }
}
