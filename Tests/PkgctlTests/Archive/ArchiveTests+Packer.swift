import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension ArchiveTests {
    @Test func packingTwiceGivesIdenticalBytes() throws {
        let sandbox = try ArchiveSandbox()
        for (path, data) in Self.siteFiles { try sandbox.put(data, at: path, in: sandbox.source) }
        let first = sandbox.work + "/first.zip"
        let second = sandbox.work + "/second.zip"
        try BundlePacker.pack(directory: sandbox.source, to: first)
        // Move every file's times and permissions years apart (a zip's DOS time has
        // 2-second steps, so merely touching the files would rarely show): none may reach the zip.
        for (index, path) in Self.siteFiles.map(\.0).enumerated() {
            let file = sandbox.source + "/" + path
            var times = [timeval(tv_sec: 1_000_000_000 + index * 86_400 * 400, tv_usec: 0),
                         timeval(tv_sec: 1_500_000_000 + index * 7_777, tv_usec: 0)]
            #expect(utimes(file, &times) == 0)
            #expect(chmod(file, index % 2 == 0 ? 0o600 : 0o755) == 0)
        }
        try BundlePacker.pack(directory: sandbox.source, to: second)
        #expect(try sandbox.read(first) == (try sandbox.read(second)))
        #expect(sandbox.tree(sandbox.work).filter { $0.contains("partial") } == [])
    }

    @Test func packedBundleRoundTrips() throws {
        let sandbox = try ArchiveSandbox()
        for (path, data) in Self.siteFiles { try sandbox.put(data, at: path, in: sandbox.source) }
        try BundlePacker.pack(directory: sandbox.source, to: sandbox.archivePath)

        let extractor = BundleExtractor(archivePath: sandbox.archivePath, label: Self.label)
        let contents = try extractor.inspect()
        #expect(contents.fileCount == Self.siteFiles.count)
        let index = try extractor.extract(contents, into: sandbox.out)
        #expect(sandbox.tree(sandbox.out) == sandbox.tree(sandbox.source))
        for (path, data) in Self.siteFiles {
            #expect(try sandbox.read(sandbox.out + "/" + path) == data)
            #expect(index.files[path]?.sha256 == (try ArchiveSandbox.sha256sum(sandbox.source + "/" + path)))
        }
    }

    @Test func packedBundleIsSortedDeflatedAndDated1980() throws {
        let sandbox = try ArchiveSandbox()
        try sandbox.put(Array(String(repeating: "b", count: 4000).utf8), at: "b.txt", in: sandbox.source)
        try sandbox.put(Array("a".utf8), at: "a/z.txt", in: sandbox.source)
        try BundlePacker.pack(directory: sandbox.source, to: sandbox.archivePath)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
        process.arguments = ["-Z", "-l", sandbox.archivePath]
        let pipe = ProcessLaunch.pipe()
        process.standardOutput = pipe
        try ProcessLaunch.run(process)
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = listing.split(separator: "\n").filter { $0.hasPrefix("-rw-r--r--") }
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix("a/z.txt") == true)
        #expect(lines.last?.hasSuffix("b.txt") == true)
        #expect(lines.allSatisfy { $0.contains("80-Jan-01 00:00") }, "\(listing)")
        #expect(lines.last?.contains("def") == true, "\(listing)")
    }

    @Test func packingAnEmptyTreeGivesAnEmptyBundle() throws {
        let sandbox = try ArchiveSandbox()
        try BundlePacker.pack(directory: sandbox.source, to: sandbox.archivePath)
        let contents = try BundleExtractor(archivePath: sandbox.archivePath, label: Self.label).inspect()
        #expect(contents.fileCount == 0)
    }

    @Test func packerRefusesSymlinks() throws {
        let sandbox = try ArchiveSandbox()
        try sandbox.put(Array("ok".utf8), at: "sub/ok.txt", in: sandbox.source)
        #expect(symlink("/etc/passwd", sandbox.source + "/sub/passwd") == 0)
        let error = try #require(throws: PkgError.self) {
            try BundlePacker.pack(directory: sandbox.source, to: sandbox.archivePath)
        }
        #expect(error.code == .unsafeEntry)
        #expect(error.message.contains("'sub/passwd'"))
        #expect(error.message.contains("symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.archivePath))
        #expect(sandbox.tree(sandbox.root).filter { $0.contains("partial") } == [])
    }

    @Test func packerRefusesSpecialFiles() throws {
        let sandbox = try ArchiveSandbox()
        #expect(mkfifo(sandbox.source + "/pipe", 0o644) == 0)
        let error = try #require(throws: PkgError.self) {
            try BundlePacker.pack(directory: sandbox.source, to: sandbox.archivePath)
        }
        #expect(error.code == .unsafeEntry)
        #expect(error.message.contains("'pipe'"))
        #expect(error.message.contains("special file"))
    }

    @Test func dosTimestamps() {
        #expect(DOSTimestamp(utcSeconds: 0) == .epoch)
        #expect(DOSTimestamp(utcSeconds: 315_532_800) == .epoch)  // 1980-01-01T00:00:00Z
        // 2020-02-29T12:34:56Z
        #expect(DOSTimestamp(utcSeconds: 1_582_979_696)
                == DOSTimestamp(time: (12 << 11) | (34 << 5) | 28, date: (40 << 9) | (2 << 5) | 29))
    }
}
