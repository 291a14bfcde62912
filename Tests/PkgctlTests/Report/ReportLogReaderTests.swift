import CPrecompression
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The pieces under `fleet report`'s CDN layouts, fed in ways a whole file never shows:
/// gzip a byte at a time into a tiny buffer, escapes and cut lines.
@Suite struct ReportLogReaderTests {
    private static func gzipped(_ text: String) throws -> [UInt8] {
        let input = Array(text.utf8)
        var output = [UInt8](repeating: 0, count: pkg_gzip_bound(input.count))
        var length = output.count
        try #require(pkg_gzip(input, input.count, &output, &length) == 0)
        return Array(output[..<length])
    }

    private static func inflate(_ bytes: [UInt8], pieceSize: Int, outputSize: Int) throws -> [UInt8] {
        let reader = try GzipReader(what: "test.gz", outputSize: outputSize)
        var output: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: pieceSize) {
            try bytes[start..<min(bytes.count, start + pieceSize)].withUnsafeBufferPointer { piece in
                try reader.feed(piece) { output += $0 }
            }
        }
        try reader.finish()
        return output
    }

    @Test func gzipMembersReadWholeInAnyPiecesAndACutOneIsRefused() throws {
        let first = String(repeating: "first member line\n", count: 300), second = "second member\n"
        let both = try Self.gzipped(first) + Self.gzipped(second)
        for (pieceSize, outputSize) in [(1, 7), (3, 4096), (both.count, 1 << 20)] {
            #expect(try Self.inflate(both, pieceSize: pieceSize, outputSize: outputSize) == Array((first + second).utf8))
        }
        #expect(throws: PkgError.self) { try Self.inflate(Array(both.dropLast(3)), pieceSize: 5, outputSize: 64) }
        #expect(throws: PkgError.self) { try Self.inflate(both + [0x00, 0x01], pieceSize: 5, outputSize: 64) }
    }

    private static func tally(_ lines: [String]) -> FleetTally {
        var tally = FleetTally()
        var reader = ReportLogReader()
        for line in lines {
            Array(line.utf8).withUnsafeBufferPointer { reader.read(line: $0, into: &tally) }
        }
        return tally
    }

    @Test func logpushEscapesAreUndoneAndABrokenOneIsUnreadable() {
        let query = #"p=demo\u0026r=1.0.0\u0026a=installed\u0026d=\u0044ev\u0026v=0.1.0"#
        let tally = Self.tally([
            #"{"ClientRequestURI" : "\/app\/report\/v1?\#(query)","EdgeResponseStatus":404}"#,
            #"{"ClientRequestURI":"/app/report/v1?p=demo\u0026r=1.0.0\u0026a=held\u0026d=x\u0026v=\ud83d"}"#,
            #"{"ClientRequestURI":"/app/report/v1?p=demo&r=1.0.0&a=held&d=x\q"}"#,
            #"{"ClientRequestURI":"/app/index.html?x=\"/report/v1?\""}"#,
            #"{"ClientRequestPath":"/app/report/v1","EdgeResponseStatus":404}"#,
        ])
        #expect(tally.release("demo", "1.0.0")?.devices == ["Dev"])
        #expect((tally.reports, tally.unreadable) == (1, 2))
    }

    @Test func aCloudFrontLineCutInsideItsQueryIsUnreadable() {
        let header = "#Fields: date cs-uri-stem cs-uri-query"
        let long = "2026-11-25\t/report/v1\tp=demo&r=1.0.0&a=installed&d=Dev&v=0.1.0&x=" + String(repeating: "y", count: FleetTally.lineLimit)
        let tally = Self.tally([header, long, "2026-11-25\t/report/v1x\tp=demo&r=1.0.0&a=installed&d=Dev&v=0.1.0", "2026-11-25\t/report/v1"])
        #expect((tally.reports, tally.unreadable) == (0, 1))
    }
}
