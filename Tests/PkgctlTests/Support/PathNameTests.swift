import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `PathName.parent` is where a file beside `path` goes (temporary files, directory fsync):
/// a bare name lives in the working directory, never in `/`.
@Suite struct PathNameTests {
    @Test func theParentOfAPathIsTheDirectoryHoldingIt() {
        #expect(PathName.parent("/a/b") == "/a")
        #expect(PathName.parent("/a/b/") == "/a")
        #expect(PathName.parent("/a") == "/")
        #expect(PathName.parent("/") == "/")
        #expect(PathName.parent("a/b") == "a")
        #expect(PathName.parent("manifest.json") == ".")
    }

    /// The kernel splits at the byte '/': so must a name checked byte by byte (EntryName)
    /// when its directory is made, even where '/' and a combining mark are one Character.
    @Test func pathsSplitAtTheByteSlashBeforeACombiningMark() {
        #expect(PathName.parent("a/\u{301}b.js") == "a")
        #expect(PathName.parent("/s/a/\u{301}b/c.js") == "/s/a/\u{301}b")
        #expect(PathName.lastComponent("a/\u{301}b.js") == "\u{301}b.js")
        #expect(PathName.standardized("/a/\u{301}b/../c") == "/a/c")
        let route = PackageRoute("WWW.example.com/\u{301}app/")
        #expect(route?.host == "www.example.com")
        #expect(route?.prefix == "/\u{301}app")
    }
}
