import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// ``StagingDirectory`` owns its directory: every exit leaves it published or gone.
@Suite struct StagingDirectoryTests {
    private struct WorkFailed: Error {}

    @Test func aPublishedDirectoryIsKeptUnderItsNewName() throws {
        let temp = try TemporaryDirectory()
        let destination = temp.path("published")
        try StagingDirectory.run(in: temp.path, prefix: "work") { staging in
            try Data("x".utf8).write(to: URL(fileURLWithPath: staging.path + "/file"))
            try staging.publish(as: destination)
        }
        #expect(FileManager.default.fileExists(atPath: destination + "/file"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path) == ["published"])
    }

    @Test func workThatReturnsWithoutPublishingLeavesNothing() throws {
        let temp = try TemporaryDirectory()
        var seen = ""
        let result = try StagingDirectory.run(in: temp.path, prefix: "work") { staging in
            seen = staging.path
            try FileManager.default.createDirectory(atPath: staging.path + "/a/b", withIntermediateDirectories: true)
            return 7
        }
        #expect(result == 7)
        #expect(seen.hasPrefix(temp.path + "/work."))
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    }

    @Test func workThatThrowsLeavesNothingAndItsErrorIsReported() throws {
        let temp = try TemporaryDirectory()
        #expect(throws: WorkFailed.self) {
            try StagingDirectory.run(in: temp.path, prefix: "work") { staging in
                try Data("x".utf8).write(to: URL(fileURLWithPath: staging.path + "/file"))
                throw WorkFailed()
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    }

    @Test func aFailedPublishLeavesNothing() throws {
        let temp = try TemporaryDirectory()
        let error = #expect(throws: PkgError.self) {
            try StagingDirectory.run(in: temp.path, prefix: "work") { staging in
                try staging.publish(as: temp.path + "/missing-parent/published")
            }
        }
        #expect(error?.code == .fileSystem)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).isEmpty)
    }
}
