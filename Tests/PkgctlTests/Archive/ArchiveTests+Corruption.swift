import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Archives whose damage only shows while their data is read.
extension ArchiveTests {
    /// Inspects and extracts with `workers`; checks the error and that
    /// nothing was written outside the target directory.
    func expectExtractionFailure(code: PkgError.Code, entry: String, reason: String, workers: Int = 2,
                                 sourceLocation: SourceLocation = #_sourceLocation,
                                 _ writer: ZipWriter) throws {
        let sandbox = try ArchiveSandbox()
        try writer.write(to: sandbox.archivePath)
        let extractor = BundleExtractor(archivePath: sandbox.archivePath, label: Self.label)
        let contents = try extractor.inspect()
        let error = try #require(throws: PkgError.self, sourceLocation: sourceLocation) {
            try extractor.extract(contents, into: sandbox.out, workers: workers)
        }
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.message.hasPrefix("\(Self.label): entry '\(entry)': "), "\(error.message)",
                sourceLocation: sourceLocation)
        #expect(error.message.contains(reason), "\(error.message)", sourceLocation: sourceLocation)
        #expect(sandbox.strayPaths() == [], sourceLocation: sourceLocation)
    }

    @Test func crcMismatchIsCorrupt() throws {
        try expectExtractionFailure(code: .corruptArchive, entry: "bad.txt", reason: "CRC mismatch",
                                    ZipWriter([.init("good.txt", "good"), .init("bad.txt", "payload", crc: 0xdead_beef)]))
    }

    @Test(arguments: [1, 4])
    func crcMismatchAmongManyFilesStopsAllWorkers(workers: Int) throws {
        var entries = (0..<200).map { ZipWriter.Entry("f\($0).txt", String(repeating: "x", count: $0)) }
        entries[120].crc = 1
        try expectExtractionFailure(code: .corruptArchive, entry: "f120.txt", reason: "CRC mismatch",
                                    workers: workers, ZipWriter(entries))
    }

    @Test func declaredSizeLargerThanTheDataIsCorrupt() throws {
        try expectExtractionFailure(code: .corruptArchive, entry: "short.txt", reason: "declared size",
                                    ZipWriter([.init("short.txt", "only a few bytes", declaredSize: 30)]))
    }

    @Test func declaredSizeSmallerThanTheDataIsCorrupt() throws {
        try expectExtractionFailure(code: .corruptArchive, entry: "long.txt", reason: "declared size",
                                    ZipWriter([.init("long.txt", "many more bytes than declared", declaredSize: 3)]))
    }
}
