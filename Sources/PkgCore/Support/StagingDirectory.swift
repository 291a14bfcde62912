import Glibc

/// Work in progress in a directory of its own, and the one owner of that
/// directory: ``run(in:prefix:_:)`` creates it, hands it to the work, and on
/// every exit it has either been renamed into place (``publish(as:)``) or is removed.
///
/// ```swift
/// try StagingDirectory.run(in: layout.staging, prefix: "demo-1.0.0") { staging in
///     try fill(staging.path)
///     try staging.publish(as: layout.versionDirectory("demo", "1.0.0"))
/// }
/// ```
package final class StagingDirectory {
    /// The directory, `PARENT/PREFIX.XXXXXX`.
    package let path: String
    private var isPublished = false

    private init(path: String) {
        self.path = path
    }

    /// Creates `PARENT/PREFIX.XXXXXX` and runs `work` on it; removes it afterwards unless
    /// `work` published it. When `work` throws, its error is the one reported and the
    /// removal is best effort (under `ROOT/staging`, ``PackageStore/recover()`` removes
    /// what is left); after a success, a failed removal is thrown.
    package static func run<Result>(in parent: String, prefix: String,
                            _ work: (StagingDirectory) throws -> Result) throws -> Result {
        let staging = StagingDirectory(path: try FileSystem.makeTemporaryDirectory(in: parent, prefix: prefix))
        let result: Result
        do {
            result = try work(staging)
        } catch {
            try? staging.removeUnlessPublished()
            throw error
        }
        try staging.removeUnlessPublished()
        return result
    }

    /// Renames the directory to `destination` (which must not exist); from then on it is not removed.
    func publish(as destination: String) throws {
        if rename(path, destination) != 0 { throw fileSystemError("rename \(path) to", destination) }
        isPublished = true
    }

    /// Removes everything under `parent`: what an interrupted process left of its staging directories.
    static func removeLeftovers(in parent: String) throws {
        for name in try FileSystem.contents(of: parent) {
            try FileSystem.removeTree(parent + "/" + name)
        }
    }

    private func removeUnlessPublished() throws {
        guard !isPublished else { return }
        try FileSystem.removeTree(path)
    }
}
