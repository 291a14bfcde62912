import CZip
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Bundles the store must refuse before anything is written.
extension ArchiveTests {
    /// Builds an archive with `build`, installs it into a store (the path that writes:
    /// inspect, then extract into staging, then rename) and checks the refusal: its
    /// code, a one-line message naming the entry and the reason, and that nothing at
    /// all was written: no version directory, record or staging leftover in the store,
    /// and nothing outside it.
    func expectRefusal(code: PkgError.Code, entry: String?, reason: String,
                       limits: ExtractionLimits = ExtractionLimits(),
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ build: (String) throws -> Void) throws {
        let sandbox = try ArchiveSandbox()
        try build(sandbox.archivePath)
        let store = PackageStore(root: sandbox.out)
        let name = Self.label.split(separator: " ").first.map(String.init) ?? "demo"
        let version = Self.label.split(separator: " ").last.map(String.init) ?? "1.0.0"
        let bundle = ManifestEntry(name: name, version: version, url: "bundle.zip",
                                   sha256: String(repeating: "0", count: 64), size: 0)
        let error = try #require(throws: PkgError.self, sourceLocation: sourceLocation) {
            try store.install(bundle, archive: sandbox.archivePath, limits: limits)
        }
        #expect(error.code == code, sourceLocation: sourceLocation)
        #expect(error.message.hasPrefix("\(Self.label): "), sourceLocation: sourceLocation)
        if let entry {
            #expect(error.message.contains("entry '\(entry)'"), "\(error.message)", sourceLocation: sourceLocation)
        }
        #expect(error.message.contains(reason), "\(error.message)", sourceLocation: sourceLocation)
        #expect(!error.message.contains("\n"), sourceLocation: sourceLocation)
        #expect(!FileSystem.exists(store.layout.packageDirectory(name)), sourceLocation: sourceLocation)
        #expect(!FileSystem.exists(store.layout.recordDirectory(name)), sourceLocation: sourceLocation)
        #expect((try? FileSystem.contents(of: store.layout.staging)) == [], sourceLocation: sourceLocation)
        #expect(sandbox.strayPaths() == [], sourceLocation: sourceLocation)
    }

    @Test(arguments: [
        ("../evil.txt", "../evil.txt", "path leaves the bundle"),
        ("a/../../evil.txt", "a/../../evil.txt", "path leaves the bundle"),
        ("../", "../", "path leaves the bundle"),
        ("/etc/evil.txt", "/etc/evil.txt", "absolute path"),
        ("a\\..\\evil.txt", "a\\..\\evil.txt", "backslash"),
        ("C:evil.txt", "C:evil.txt", "drive letter"),
        ("c:/evil.txt", "c:/evil.txt", "drive letter"),
        ("a//b.txt", "a//b.txt", "empty path component"),
        ("./a.txt", "./a.txt", "'.' path component"),
        ("a/./b.txt", "a/./b.txt", "'.' path component"),
        ("new\nline.txt", "new\\u{a}line.txt", "control character"),
        ("bell\u{7}.txt", "bell\\u{7}.txt", "control character"),
        ("", "", "empty name"),
    ])
    func refusesUnsafeNames(name: String, shown: String, reason: String) throws {
        try expectRefusal(code: .unsafeEntry, entry: shown, reason: reason) { path in
            try ZipWriter([.init("ok.txt", "fine"), .init(name, "evil")]).write(to: path)
        }
    }

    /// Found by the entry-name fuzz target (Fuzz/regressions/entry-name): names were split
    /// into components by Characters, and a "/" followed by a combining mark is one
    /// Character, so `../\u{301}evil.txt` passed as one harmless component and its bytes
    /// named a file outside the bundle.
    @Test(arguments: [
        ("../\u{301}evil.txt", "path leaves the bundle"), ("a/../\u{301}../\u{301}evil.txt", "path leaves the bundle"),
        ("a//\u{301}b.txt", "empty path component"), ("./\u{301}a.txt", "'.' path component"),
    ])
    func refusesDotComponentsBeforeACombiningMark(name: String, reason: String) throws {
        #expect(throws: EntryName.Refusal.self) { try EntryName.validate(name).get() }
        try expectRefusal(code: .unsafeEntry, entry: nil, reason: reason) { path in
            try ZipWriter([.init("ok.txt", "fine"), .init(name, "evil")]).write(to: path)
        }
    }

    @Test func refusesUnsafeNamesWrittenByLibzip() throws {
        try expectRefusal(code: .unsafeEntry, entry: "../../evil.txt", reason: "path leaves the bundle") { path in
            try ZipFixture.write([.file("ok.txt", "fine"), .file("../../evil.txt", "evil")], to: path)
        }
    }

    @Test func refusesSymlinks() throws {
        try expectRefusal(code: .unsafeEntry, entry: "link", reason: "symbolic link") { path in
            try ZipFixture.write([.file("link", Array("/etc/passwd".utf8), unixMode: 0o120777)], to: path)
        }
    }

    @Test(arguments: [UInt32(0o010644), 0o020644, 0o060644, 0o140644])
    func refusesSpecialFiles(mode: UInt32) throws {
        try expectRefusal(code: .unsafeEntry, entry: "device", reason: "special file") { path in
            try ZipFixture.write([.file("device", [1, 2, 3], unixMode: mode)], to: path)
        }
    }

    @Test func refusesDuplicateNames() throws {
        try expectRefusal(code: .unsafeEntry, entry: "a.txt", reason: "duplicate name") { path in
            try ZipWriter([.init("a.txt", "one"), .init("b.txt", "b"), .init("a.txt", "two")]).write(to: path)
        }
        try expectRefusal(code: .unsafeEntry, entry: "d/", reason: "duplicate name") { path in
            try ZipWriter([.init("d/"), .init("d/")]).write(to: path)
        }
    }

    @Test func refusesAFileThatIsAlsoADirectory() throws {
        try expectRefusal(code: .unsafeEntry, entry: "a/", reason: "both a file and a directory") { path in
            try ZipWriter([.init("a", "file"), .init("a/")]).write(to: path)
        }
        try expectRefusal(code: .unsafeEntry, entry: "a", reason: "both a file and a directory") { path in
            try ZipWriter([.init("a/"), .init("a", "file")]).write(to: path)
        }
        try expectRefusal(code: .unsafeEntry, entry: "a", reason: "parent of 'a/b'") { path in
            try ZipWriter([.init("a", "file"), .init("a/b", "nested")]).write(to: path)
        }
        try expectRefusal(code: .unsafeEntry, entry: "x/a", reason: "parent of 'x/a/b/c'") { path in
            try ZipWriter([.init("x/a/b/c", "nested"), .init("x/a", "file")]).write(to: path)
        }
    }

    @Test func refusesEncryptedEntries() throws {
        try expectRefusal(code: .unsafeEntry, entry: "secret.txt", reason: "encrypted") { path in
            try ZipWriter([.init("plain.txt", "hi"), .init("secret.txt", "xxxxxxxxxxxxxxxx", flags: 1)])
                .write(to: path)
        }
    }

    @Test func refusesUnsupportedCompressionMethods() throws {
        try expectRefusal(code: .corruptArchive, entry: "wave.txt", reason: "unsupported compression method 97") { path in
            try ZipWriter([.init("wave.txt", "not really wavpack", method: 97)]).write(to: path)
        }
    }

    @Test func refusesTooManyEntries() throws {
        try expectRefusal(code: .archiveLimit, entry: nil, reason: "3 entries, more than the limit of 2",
                          limits: ExtractionLimits(maxEntries: 2)) { path in
            try ZipFixture.write([.file("a", "a"), .file("b", "b"), .file("c", "c")], to: path)
        }
    }

    @Test func refusesBundlesThatExpandPastTheSizeLimit() throws {
        try expectRefusal(code: .archiveLimit, entry: "c.bin", reason: "more than the limit of 2500 bytes",
                          limits: ExtractionLimits(maxTotalUncompressedSize: 2500)) { path in
            let data = ArchiveSandbox.noise(count: 1000, seed: 1)
            try ZipFixture.write([.file("a.bin", data), .file("b.bin", data), .file("c.bin", data)], to: path)
        }
    }

    @Test func refusesZipBombs() throws {
        try expectRefusal(code: .archiveLimit, entry: "zeros.bin", reason: "exceeds the limit of 200:1") { path in
            try ZipFixture.write([.file("small.txt", "hello"),
                                  .file("zeros.bin", [UInt8](repeating: 0, count: 10 << 20))], to: path)
        }
    }

    @Test func toleratesHighlyCompressibleFilesBelowTheGraceSize() throws {
        // A 64 KB stylesheet of one repeated rule compresses about 400:1: not a bomb.
        let rule = Array("a.button{color:#336699;margin:0 auto}\n".utf8)
        let stylesheet = (0..<(64 * 1024 / rule.count)).flatMap { _ in rule }
        let sandbox = try ArchiveSandbox()
        try ZipFixture.write([.file("site.css", stylesheet),
                              .file("spaces.txt", [UInt8](repeating: 0x20, count: 1024))], to: sandbox.archivePath)
        let contents = try BundleExtractor(archivePath: sandbox.archivePath, label: Self.label).inspect()
        #expect(contents.fileCount == 2)
        // The same file is refused when the grace size is lowered below it: the ratio really is over the limit.
        try expectRefusal(code: .archiveLimit, entry: "site.css", reason: "exceeds the limit of 200:1",
                          limits: ExtractionLimits(ratioCheckMinimumSize: 4096)) { path in
            try ZipFixture.write([.file("site.css", stylesheet)], to: path)
        }
    }

    @Test func longHostileNamesAreCutInMessages() throws {
        let name = "../" + String(repeating: "a", count: 5000) + ".html"
        let sandbox = try ArchiveSandbox()
        try ZipFixture.write([.file(name, "x")], to: sandbox.archivePath)
        let error = try #require(throws: PkgError.self) {
            try BundleExtractor(archivePath: sandbox.archivePath, label: Self.label).inspect()
        }
        #expect(error.message.count < 300, "\(error.message.count) characters")
        #expect(error.message.contains("entry '../aaaa"))
        #expect(error.message.contains("…(5008 bytes)"))
        #expect(error.message.hasSuffix("name too long"))
    }

    @Test func refusesFilesThatAreNotZips() throws {
        try expectRefusal(code: .corruptArchive, entry: nil, reason: "not a readable zip archive") { path in
            try Data("just text, no zip".utf8).write(to: URL(fileURLWithPath: path))
        }
    }

    @Test func refusesTruncatedArchives() throws {
        try expectRefusal(code: .corruptArchive, entry: nil, reason: "not a readable zip archive") { path in
            let whole = ZipWriter([.init("a.txt", "some text"), .init("b.txt", "more text")]).bytes()
            try Data(whole.dropLast(30)).write(to: URL(fileURLWithPath: path))
        }
    }

    @Test func missingArchiveIsAFileSystemError() throws {
        let sandbox = try ArchiveSandbox()
        let error = try #require(throws: PkgError.self) {
            try BundleExtractor(archivePath: sandbox.archivePath, label: Self.label).inspect()
        }
        #expect(error.code == .fileSystem)
        #expect(error.errno == ENOENT)
        #expect(error.message.hasPrefix("\(Self.label): open \(sandbox.archivePath)"))
    }
}
