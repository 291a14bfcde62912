import Foundation
import Testing
@testable import PkgCore
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
        try Publisher(outputDirectory: origin).publish(source: BundleFixtures.demoSource("1.0.0"), name: "demo",
                                                       version: "1.0.0", routes: ["www.example.com/app"])
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
            // One origin answer, then more local requests than the handler queues before it stops reading.
            let local = (0..<(PreviewHandler.queuedRequestLimit + 3)).map { index in
                "GET /app/css/style.css?n=\(index) HTTP/1.1\r\nHost: x\r\n\r\n"
            }
            let requests = "GET /blob.bin HTTP/1.1\r\nHost: x\r\n\r\n" + local.joined()
                + "GET /app/index.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let answer = try HTTPExchange.rawBytes(Array(requests.utf8), port: port, timeout: 10)
            let text = String(decoding: answer, as: UTF8.self)
            let statuses = text.components(separatedBy: "HTTP/1.1 200 OK").count - 1
            #expect(statuses == local.count + 2, "\(statuses) answers")
            let chunked = try #require(text.range(of: "Transfer-Encoding: chunked"))
            let firstStyle = try #require(text.range(of: "text/css"))
            let page = try #require(text.range(of: "text/html"))
            #expect(chunked.lowerBound < firstStyle.lowerBound && firstStyle.lowerBound < page.lowerBound,
                    "answers out of order")
            #expect(text.hasSuffix("</html>\n") || text.hasSuffix("</html>"), "the last answer is the page")
        }
    }
}
