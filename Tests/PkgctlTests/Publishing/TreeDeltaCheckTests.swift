import PkgCrypto
import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pack` applies every tree delta it writes to its base, as a device would, and stops
/// before the manifest unless the tree built is the release's: a lying header, a data
/// frame of other bytes and a damaged object in the publishing folder are each caught.
@Suite struct TreeDeltaCheckTests {
    /// Objects by SHA-256, as the publishing folder holds them.
    var objects: [String: [UInt8]] = [:]

    mutating func index(_ files: [String: String]) -> PublishedFileIndex {
        PublishedFileIndex(files: files.keys.sorted().map { path in
            let bytes = Array(files[path]!.utf8)
            let sha256 = SHA256.hash(data: bytes).hexString
            objects[sha256] = bytes
            return .init(path: path, sha256: sha256, size: UInt64(bytes.count), mode: 0o644)
        })
    }

    /// A release with one file changed, one moved, one removed and one added, and its delta.
    mutating func release() throws -> (base: PublishedFileIndex, target: PublishedFileIndex, delta: [UInt8]) {
        let runtime = String(repeating: "function runtime(){return 42} ", count: 200)
        let base = index(["app.js": runtime + "v1", "style.css": "body{color:red}", "old/logo.svg": "<svg/>",
                          "gone.txt": "bye"])
        let target = index(["app.js": runtime + "v2", "style.css": "body{color:red}", "logo.svg": "<svg/>",
                            "new.txt": "hello"])
        let objects = self.objects
        let delta = try #require(try TreeDeltaWriter().delta(from: base, to: target) { objects[$0]! })
        return (base, target, delta)
    }

    func verify(_ delta: [UInt8], _ base: PublishedFileIndex, _ target: PublishedFileIndex) throws {
        try TreeDeltaCheck.verify(delta, from: base, to: target, label: "app 2.0 (delta from 1.0)") { objects[$0]! }
    }

    func expectRefusal(_ reason: String, _ check: () throws -> Void) {
        let error = #expect(throws: PkgError.self) { try check() }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message.hasPrefix("app 2.0 (delta from 1.0): the tree delta written does not rebuild the release (")
                == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test mutating func theWritersDeltaRebuildsItsRelease() throws {
        let (base, target, delta) = try release()
        try verify(delta, base, target)
    }

    /// Past 8 MiB of base and new contents the writer uses a smaller match finder (chainLog
    /// 21 instead of level 19's 24); up to it, the level's own.
    @Test func theSmallerMatchFinderStartsPast8MiB() {
        #expect(TreeDeltaWriter.chainLog(forSpan: 8 << 20) == nil)
        #expect(TreeDeltaWriter.chainLog(forSpan: (8 << 20) + 1) == 21)
    }

    /// With the smaller match finder, whose tree reaches back 2^20 positions, a changed file's
    /// predecessor 4.5 MiB back is still found by long-distance matching: 4.5 MiB with three
    /// bytes changed costs a few KB, and the delta rebuilds the release.
    @Test mutating func aPredecessorBeyondTheSmallerTreesReachStillCostsAlmostNothing() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var script = [UInt8](repeating: 0, count: 9 << 19)
        for i in script.indices {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            script[i] = alphabet[Int(state & 63)]
        }
        let old = String(decoding: script, as: UTF8.self)
        for i in [1 << 20, 2 << 20, 4 << 20] { script[i] = UInt8(ascii: "!") }
        let base = index(["vendor.js": old])
        let target = index(["vendor.js": String(decoding: script, as: UTF8.self)])
        try #require(TreeDeltaWriter.chainLog(forSpan: UInt64(2 * script.count)) != nil)
        let objects = self.objects
        let delta = try #require(try TreeDeltaWriter().delta(from: base, to: target) { objects[$0]! })
        #expect(delta.count < 16 << 10, "\(delta.count) bytes")
        try verify(delta, base, target)
    }

    /// A header that leaves out a removal still builds the tree it names (its digest made
    /// to match), but not the release: the comparison with the target index catches it.
    @Test mutating func aHeaderThatLiesAboutTheTreeIsRefused() throws {
        let (base, target, delta) = try release()
        var parsed = try TreeDelta.parse(delta, label: "test")
        parsed.header.removed.removeAll { $0 == "gone.txt" }
        var kept = target.fileIndex.files
        kept["gone.txt"] = base.fileIndex.files["gone.txt"]
        parsed.header.target = TreeDigest.of(FileIndex(files: kept))
        expectRefusal("'gone.txt' is extra") { try verify(try parsed.encoded(), base, target) }
    }

    @Test mutating func aDataFrameOfOtherBytesIsRefused() throws {
        let (base, target, delta) = try release()
        var parsed = try TreeDelta.parse(delta, label: "test")
        let sizes = parsed.header.files.filter { $0.from == nil }.reduce(0) { $0 + Int($1.size) }
        parsed.data = try Zstd.compress([UInt8](repeating: 0x61, count: sizes))[...]
        expectRefusal("the tree it builds is not the one it names") { try verify(try parsed.encoded(), base, target) }
    }

    @Test mutating func aDeltaFromAnotherTreeIsRefused() throws {
        let (base, target, delta) = try release()
        var parsed = try TreeDelta.parse(delta, label: "test")
        parsed.header.base = TreeDigest.of(target)
        expectRefusal("it starts from another tree") { try verify(try parsed.encoded(), base, target) }
    }

    /// A base object damaged on the publisher's disk (same size, other bytes) makes a delta
    /// that decodes on the publisher's machine and on no device: `pack` stops, the manifest
    /// keeps its bytes and no delta is written.
    @Test func aDamagedObjectInTheFolderStopsThePackBeforeItsManifest() throws {
        let temp = try TemporaryDirectory()
        func source(_ version: String) throws -> String {
            let folder = temp.path + "/src-" + version
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let script = String(repeating: "export const answer = 42; ", count: 100) + version
            try Data(script.utf8).write(to: URL(fileURLWithPath: folder + "/app.js"))
            try Data("<script src=app.js></script>".utf8).write(to: URL(fileURLWithPath: folder + "/index.html"))
            return folder
        }
        let out = temp.path + "/out"
        let publisher = PublishingFolder(out)
        let first = try publisher.pack(source: try source("1.0"), name: "app", version: "1.0")
        let index = try #require(try PublishedFileIndex.parse(
            try #require(try FileSystem.read(out + "/" + (first.index?.url ?? ""))), label: "app 1.0", limits: ExtractionLimits()))
        let script = try #require(index.files.first { $0.path == "app.js" })
        let object = out + "/" + PublishedFileIndex.objectPath(script.sha256)
        try Data(repeating: 0x20, count: Int(script.size)).write(to: URL(fileURLWithPath: object))
        let manifest = try #require(try FileSystem.read(out + "/manifest.json"))

        let error = #expect(throws: PkgError.self) {
            try publisher.pack(source: try source("2.0"), name: "app", version: "2.0", options: .init(deltaFrom: 1))
        }
        #expect(error?.code == .verificationFailed)
        #expect(error?.message == "app 2.0 (delta from 1.0): the tree delta written does not rebuild the release (object "
                + "\(PublishedFileIndex.objectPath(script.sha256)) differs from its name); the manifest is left as it was")
        #expect(try FileSystem.read(out + "/manifest.json") == manifest)
        #expect(!FileManager.default.fileExists(atPath: out + "/deltas"))
    }
}
