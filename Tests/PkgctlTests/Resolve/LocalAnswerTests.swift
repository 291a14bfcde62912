import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite struct LocalAnswerTests {
    let sandbox: ResolveSandbox
    let resolver: Resolver
    static let big = [UInt8].filled(count: (1 << 20) + 123) { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("<h1>hi</h1>".utf8), "big.bin": Self.big, "empty.txt": [],
            "digits.txt": Array("0123456789".utf8),
        ])
        resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
    }

    func run(_ url: String, headers: [(name: String, value: String)] = [], method: String = "GET") -> RecordingTask {
        let task = RecordingTask(ResourceRequest(url: url, method: method, headers: headers))
        resolver.start(task)
        #expect(task.wait())
        #expect(task.isWellOrdered)
        return task
    }

    @Test func servesWithTypeLengthAndETag() throws {
        let task = run("app://www.example.com/app/index.html", headers: [("Accept", chromiumDocumentAccept)])
        let response = try #require(task.response)
        #expect(response.status == 200)
        #expect(response.header("content-type") == "text/html; charset=utf-8")
        #expect(response.header("Content-Length") == "11")
        #expect(response.header("Accept-Ranges") == "bytes")
        #expect(task.text == "<h1>hi</h1>")
        let etag = try #require(response.header("ETag"))
        let again = run("app://www.example.com/app/index.html", headers: [("If-None-Match", "\"nope\", " + etag)])
        #expect(again.response?.status == 304)
        #expect(again.events == [.response(304), .finish])
        let weak = run("app://www.example.com/app/index.html", headers: [("If-None-Match", "W/" + etag)])
        #expect(weak.response?.status == 304)
        let star = run("app://www.example.com/app/index.html", headers: [("If-None-Match", "*")])
        #expect(star.response?.status == 304)
    }

    @Test func ranges() throws {
        let url = "app://www.example.com/app/digits.txt"
        let middle = run(url, headers: [("Range", "bytes=2-4")])
        #expect(middle.response?.status == 206)
        #expect(middle.response?.header("Content-Range") == "bytes 2-4/10")
        #expect(middle.response?.header("Content-Length") == "3")
        #expect(middle.text == "234")
        let open = run(url, headers: [("Range", "bytes=7-")])
        #expect(open.text == "789")
        let suffix = run(url, headers: [("Range", "bytes=-3")])
        #expect(suffix.response?.status == 206)
        #expect(suffix.text == "789")
        #expect(suffix.response?.header("Content-Range") == "bytes 7-9/10")
        let longSuffix = run(url, headers: [("Range", "bytes=-500")])
        #expect(longSuffix.text == "0123456789")
        let pastEnd = run(url, headers: [("Range", "bytes=5-100")])
        #expect(pastEnd.text == "56789")
        let unsatisfiable = run(url, headers: [("Range", "bytes=10-")])
        #expect(unsatisfiable.response?.status == 416)
        #expect(unsatisfiable.response?.header("Content-Range") == "bytes */10")
        #expect(unsatisfiable.body.isEmpty)
        let multiple = run(url, headers: [("Range", "bytes=0-1,4-5")])
        #expect(multiple.response?.status == 200)
        #expect(multiple.text == "0123456789")
        let staleIfRange = run(url, headers: [("Range", "bytes=0-1"), ("If-Range", "\"old\"")])
        #expect(staleIfRange.response?.status == 200)
        let empty = run("app://www.example.com/app/empty.txt", headers: [("Range", "bytes=-5")])
        #expect(empty.response?.status == 416)
        #expect(LocalAnswer.parseRange("bytes=-0", size: 10) == .unsatisfiable)
        #expect(LocalAnswer.parseRange("bytes=5-2", size: 10) == .whole)
        #expect(LocalAnswer.parseRange("items=1-2", size: 10) == .whole)
    }

    @Test func streamsLargeFileInChunks() throws {
        let task = run("app://www.example.com/app/big.bin")
        #expect(task.response?.header("Content-Length") == String(Self.big.count))
        #expect(task.body == Self.big)
        let chunks = task.events.filter { if case .data = $0 { return true } else { return false } }
        #expect(chunks.count == (Self.big.count + 65535) / 65536)
        for case .data(let size) in task.events { #expect(size <= 64 * 1024) }
    }

    @Test func headHasNoBody() {
        let task = run("app://www.example.com/app/digits.txt", method: "HEAD")
        #expect(task.events == [.response(200), .finish])
        #expect(task.response?.header("Content-Length") == "10")
    }

    @Test func nothingAfterStop() throws {
        do {
            // Stop from inside the first data callback: no further chunk, no finish.
            let task = RecordingTask("app://www.example.com/app/big.bin")
            let resolver = try Resolver(store: sandbox.store,
                                        configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9"))
            task.onData = { task in
                resolver.stop(task)
                task.markStopped()
            }
            resolver.start(task)
            #expect(!task.wait(seconds: 1))
            #expect(task.events == [.response(200), .data(65536)])
            #expect(task.deliveredAfterStop == 0)
            #expect(resolver.activeTaskCount == 0)
            // The version keeps a large file open for the next request, once.
            #expect(eventually(seconds: 2) { openFiles(under: sandbox.root).count <= 1 })
        }
        // Whatever the stopped read held is gone with the resolver: nothing leaked.
        #expect(eventually(seconds: 2) { openFiles(under: sandbox.root).isEmpty })
    }

    @Test func fastPathHandsOutTheFile() throws {
        let answer = try #require(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/digits.txt",
                                                                            headers: [("Range", "bytes=-4")])))
        #expect(answer.response.status == 206)
        #expect(answer.range == 6..<10)
        let file = try #require(answer.file)
        #expect(file.isInMemory, "a small package file is served from memory")
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(buffer.withUnsafeMutableBytes { file.read(into: $0, at: 6) } == 4)
        #expect(String(decoding: buffer, as: UTF8.self) == "6789")
        #expect(buffer.withUnsafeMutableBytes { file.read(into: $0, at: 10) } == 0)
        let big = try #require(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/big.bin"))?.file)
        #expect(!big.isInMemory && big.descriptor >= 0, "a large file is sent from its descriptor")
        #expect(answer.source == .package(name: "app", version: "1.0.0"))
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/missing.js")) == nil)
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/digits.txt", method: "POST")) == nil)
    }
}
