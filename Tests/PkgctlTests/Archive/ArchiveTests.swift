import CZip
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite struct ArchiveTests {
    static let label = "demo 1.2.0"

    /// The source files of a small site: nested directories, text, binary
    /// larger than one read buffer, and an empty file.
    static let siteFiles: [(String, [UInt8])] = [
        ("index.html", Array("<!doctype html><title>demo</title>\n".utf8)),
        ("css/site.css", Array(String(repeating: "body { margin: 0 }\n", count: 200).utf8)),
        ("js/app/main.js", Array("console.log('hi')\n".utf8)),
        ("img/logo.bin", ArchiveSandbox.noise(count: 300_000, seed: 7)),
        ("empty.txt", []),
    ]

    @Test func extractsNestedTextAndBinaryFiles() throws {
        let sandbox = try ArchiveSandbox()
        var entries = Self.siteFiles.map { ZipFixture.Entry.file($0.0, $0.1) }
        entries.append(.directory("docs/"))
        entries[3].method = ZIP_CM_STORE
        try ZipFixture.write(entries, to: sandbox.archivePath)

        let extractor = BundleExtractor(archivePath: sandbox.archivePath, label: Self.label)
        let contents = try extractor.inspect()
        #expect(contents.fileCount == 5)
        #expect(contents.directoryCount == 5)  // css, docs, img, js, js/app
        #expect(contents.totalUncompressedSize == UInt64(Self.siteFiles.reduce(0) { $0 + $1.1.count }))

        let index = try extractor.extract(contents, into: sandbox.out)
        #expect(Set(index.files.keys) == Set(Self.siteFiles.map(\.0)))
        for (path, data) in Self.siteFiles {
            let extracted = sandbox.out + "/" + path
            #expect(try sandbox.read(extracted) == data, "\(path)")
            #expect(index.files[path]?.size == UInt64(data.count))
            #expect(index.files[path]?.sha256 == (try ArchiveSandbox.sha256sum(extracted)))
            var info = stat()
            #expect(lstat(extracted, &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
            #expect(info.st_mode & 0o111 == 0)
        }
        #expect(sandbox.tree(sandbox.out).contains("docs"))
        #expect(sandbox.strayPaths() == [])
    }

    @Test(arguments: [1, 4])
    func extractionGivesTheSameIndexWithAnyWorkerCount(workers: Int) throws {
        let sandbox = try ArchiveSandbox()
        let files = (0..<300).map { number in
            ("d\(number % 7)/sub\(number % 3)/file\(number).txt",
             ArchiveSandbox.noise(count: (number * 997) % 20_000, seed: UInt64(number)))
        }
        try ZipFixture.write(files.map { .file($0.0, $0.1) }, to: sandbox.archivePath)
        let extractor = BundleExtractor(archivePath: sandbox.archivePath, label: Self.label)
        let contents = try extractor.inspect()

        let single = try extractor.extract(contents, into: sandbox.out, workers: 1)
        let parallelOut = sandbox.work + "/parallel"
        try FileManager.default.createDirectory(atPath: parallelOut, withIntermediateDirectories: false)
        let parallel = try extractor.extract(contents, into: parallelOut, workers: workers)

        #expect(single == parallel)
        #expect(single.files.count == 300)
        for (path, data) in files {
            #expect(try sandbox.read(parallelOut + "/" + path) == data)
        }
        // Spot-check hashes against an independent tool.
        for (path, _) in files.prefix(5) {
            #expect(single.files[path]?.sha256 == (try ArchiveSandbox.sha256sum(sandbox.out + "/" + path)))
        }
    }

    @Test func emptyBundleExtractsNothing() throws {
        let sandbox = try ArchiveSandbox()
        try ZipWriter([]).write(to: sandbox.archivePath)
        let extractor = BundleExtractor(archivePath: sandbox.archivePath, label: Self.label)
        let contents = try extractor.inspect()
        #expect(contents.fileCount == 0)
        #expect(try extractor.extract(contents, into: sandbox.out) == FileIndex())
    }

    @Test func contentsOfAnotherArchiveAreRefused() throws {
        let sandbox = try ArchiveSandbox()
        try ZipFixture.write([.file("a.txt", "a")], to: sandbox.archivePath)
        let other = sandbox.root + "/other.zip"
        try ZipFixture.write([.file("b.txt", "b")], to: other)
        let contents = try BundleExtractor(archivePath: other, label: Self.label).inspect()
        let error = try #require(throws: PkgError.self) {
            try BundleExtractor(archivePath: sandbox.archivePath, label: Self.label).extract(contents, into: sandbox.out)
        }
        #expect(error.code == .invalidArgument)
        #expect(sandbox.tree(sandbox.out) == [])
    }

    @Test func entryNameValidation() {
        #expect((try? EntryName.validate("a/b/c.txt").get()) == EntryName(path: "a/b/c.txt", isDirectory: false))
        #expect((try? EntryName.validate("a/b/").get()) == EntryName(path: "a/b", isDirectory: true))
        #expect((try? EntryName.validate("été/naïve.txt").get()) != nil)
        #expect((try? EntryName.validate("..a/b..").get()) != nil)
        for bad in ["", "/", "a//b", "a/./b", "./", "..", "a/..", "c:x", "a\\b", "tab\there", "x\u{85}y"] {
            #expect((try? EntryName.validate(bad).get()) == nil, "\(bad)")
        }
    }
}
