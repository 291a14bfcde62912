import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing
@testable import PkgServer

/// How `pkgctl serve` frames answers it writes itself: chunks for an origin
/// answer of unknown length, the connection's end for HTTP/1.0, and pipelined
/// requests answered in order behind a slow one.
@Suite struct ResponseFramingTests {
    let temp: TemporaryDirectory
    let store: PackageStore
    let body = (0..<(300 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 ^ ($0 >> 9)) }

    init() throws {
        temp = try TemporaryDirectory()
        let origin = temp.path + "/origin"
        store = PackageStore(root: temp.path + "/store")
        try PublishingFolder(origin).pack(source: BundleFixtures.demoSource("1.0.0"), name: "demo",
                                                       version: "1.0.0", options: .init(routes: ["www.example.com/app"]))
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
        try FileManager.default.createDirectory(atPath: temp.path + "/site", withIntermediateDirectories: true)
        try Data(body).write(to: URL(fileURLWithPath: temp.path + "/site/blob.bin"))
    }

    private func withServer(_ body: (Int) throws -> Void) throws {
        let origin = try CloseDelimitedOrigin(root: temp.path + "/site")
        let resolver = try Resolver(store: store, configuration: ResolverConfiguration(upstream: origin.baseURL))
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com"))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        try body(port)
    }

    @Test func anOriginAnswerOfUnknownLengthGoesOutInChunks() throws {
        try withServer { port in
            let answer = try HTTPExchange.curl("http://127.0.0.1:\(port)/blob.bin")
            #expect(answer.status == 200)
            #expect(answer.header("Transfer-Encoding") == "chunked")
            #expect(answer.header("Content-Length") == nil)
            #expect(answer.body == Data(body), "curl decoded \(answer.body.count) of \(body.count) bytes")
            // An HTTP/1.0 client cannot take chunks: the body ends with the connection.
            let old = try HTTPExchange.rawBytes(Array("GET /blob.bin HTTP/1.0\r\nHost: x\r\n\r\n".utf8), port: port)
            let split = try #require(old.firstRange(of: Array("\r\n\r\n".utf8)))
            let head = String(decoding: old[..<split.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200 OK") && head.contains("Connection: close"), "\(head)")
            #expect(!head.contains("chunked"))
            #expect(Array(old[split.upperBound...]) == body)
        }
    }

    @Test func pipelinedRequestsWaitInOrderBehindAnOriginAnswer() throws {
        try withServer { port in
            // An origin answer first (it takes over 0.2 s), then more local requests than the
            // handler queues before it stops reading; the rest comes later, so it is read only
            // if reading resumes once the queue drains.
            let local = (0..<(PreviewHandler.queuedRequestLimit + 2)).map { index in
                "GET /app/css/style.css?n=\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            let first = "GET /blob.bin HTTP/1.1\r\nHost: x\r\n\r\n" + local.joined()
            let later = local.joined() + "GET /app/index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let connection = try RawConnection(port: port, timeout: 10)
            #expect(connection.send(Array(first.utf8)))
            Thread.sleep(forTimeInterval: 0.1)
            #expect(connection.send(Array(later.utf8)))
            let text = String(decoding: connection.readToEnd().bytes, as: UTF8.self)
            let types = text.components(separatedBy: "\r\n").filter { $0.hasPrefix("Content-Type: ") }
                .map { String($0.dropFirst("Content-Type: ".count)) }
            let expected = ["application/octet-stream"] + Array(repeating: "text/css; charset=utf-8", count: 2 * local.count)
                + ["text/html; charset=utf-8"]
            #expect(types == expected, "answers out of order or missing: \(types)")
            #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == expected.count)
        }
    }

    @Test func aShutdownWhileAnAnswerIsStillBeingWrittenClosesOnceItIsOut() throws {
        // A package file too large for memory goes out with sendfile; the client reads its
        // head, then nothing while the server shuts down, then the rest.
        let large = temp.path + "/large"
        let size = 16 << 20
        try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
        // Random bytes: zeros would trip the zip-bomb ratio limit on install.
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: size)
        try random.write(to: URL(fileURLWithPath: large + "/large.bin"))
        try PublishingFolder(temp.path + "/origin").pack(source: large, name: "large", version: "1", options: .init(routes: ["www.example.com/large"]))
        #expect(try Updater(store: store, manifestURL: "file://" + temp.path + "/origin/manifest.json").run().succeeded)
        let resolver = try Resolver(store: store)
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com"))
        let port = try #require(try server.start().port)
        let connection = try RawConnection(port: port, timeout: 10)
        #expect(connection.send(Array("GET /large/large.bin HTTP/1.1\r\nHost: x\r\n\r\n".utf8)))
        let head = connection.read { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        let shutDown = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            try? server.shutdown()
            shutDown.signal()
        }
        Thread.sleep(forTimeInterval: 0.5)
        // Keep-alive was asked for, yet the connection ends once the answer is out.
        let (rest, reset) = connection.readToEnd()
        #expect(!reset, "the connection was reset (the idle timeout) instead of closed after the answer")
        let headLength = try #require(head.firstRange(of: Array("\r\n\r\n".utf8))).upperBound
        #expect(head.count - headLength + rest.count == size, "the answer was cut short")
        #expect(shutDown.wait(timeout: .now() + 5) == .success, "shutdown waited on a connection whose answer was out")
    }
}
