import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `pkgctl fleet report` over the logs CDNs write, told apart without a flag: CloudFront
/// standard logs (W3C, the 33 fields of AWS's documentation), Cloudflare Logpush
/// `http_requests` JSON lines, nginx `combined`, each plain or gzipped by the real `gzip`.
/// The same reports (queries made by `OutcomeReport.query`, as `pkgctl update` makes them)
/// must add up the same in every layout. Real pkgctl processes; no network.
@Suite struct CDNLogCommandTests {
    let temp: TemporaryDirectory

    init() throws {
        temp = try TemporaryDirectory(prefix: "pkgctl-cdnlogs")
    }

    /// Reports about two releases; values that need escaping (`+`, a literal `%`, `~`) so
    /// CloudFront's extra encoding layer (`%2B` logged as `%252B`, `%25` as `%2525`) is met.
    private static let reports: [OutcomeReport] = (0..<12).map { index in
        let outcome: OutcomeReport.Outcome = index % 4 == 0 ? .rolledBack : index % 4 == 1 ? .failed : .upgraded
        return OutcomeReport(package: "demo", release: index < 6 ? "2.0.0+b1" : "2.1.0", from: "1.0.0~rc", outcome: outcome,
                             cause: outcome == .rolledBack ? "exit" : nil, errorCode: outcome == .failed ? "disk%full" : nil,
                             device: String(format: "dev%013d", index % 9), client: "0.1.0")
    }

    // MARK: Each vendor's layout

    private static func combined(_ query: String?) -> String {
        let target = query.map { "/app/report/v1?\($0)" } ?? "/app/assets/index.js"
        return #"127.0.0.1 - - [25/Nov/2026:17:00:00 +0000] "GET \#(target) HTTP/1.1" 404 153 "-" "pkgctl/0.1.0""# + "\n"
    }

    /// The 33 fields of a CloudFront standard log, in AWS's documented order.
    private static let cloudFrontFields = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status "
        + "cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header "
        + "cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type "
        + "cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type "
        + "sc-content-type sc-content-len sc-range-start sc-range-end"

    /// A field value as CloudFront logs it: bytes 0-32 and from 127, and `<>"#%{}|\^~[]`'`, as `%XX`.
    private static func cloudFrontEncoded(_ text: String) -> String {
        text.utf8.map { byte in
            byte <= 32 || byte >= 127 || Array(##"<>"#%{}|\^~[]`'"##.utf8).contains(byte)
                ? String(format: "%%%02X", byte) : String(UnicodeScalar(byte))
        }.joined()
    }

    /// A request's line; without a query, one of the site's own (or, given `stem`, a report request without a query).
    private static func cloudFront(_ query: String?, stem: String? = nil) -> String {
        let values = ["2026-11-25", "17:00:00", "FRA56-P1", "512", "127.0.0.1", "GET", "d111111abcdef8.cloudfront.net",
                      stem ?? (query == nil ? "/app/assets/index.js" : "/app/report/v1"), "404", "-",
                      cloudFrontEncoded("pkgctl/0.1.0 (Linux)"), query.map(cloudFrontEncoded) ?? "-", "-", "Error",
                      "SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==", "cdn.example.com", "https", "180", "0.001",
                      "-", "TLSv1.3", "TLS_AES_128_GCM_SHA256", "Error", "HTTP/1.1", "-", "-", "51234", "0.001", "Error",
                      "text/html", "153", "-", "-"]
        precondition(values.count == 33)
        return values.joined(separator: "\t") + "\n"
    }

    private static let cloudFrontHeader = "#Version: 1.0\n#Fields: \(cloudFrontFields)\n"

    /// A Logpush line; `escapeSlashes` writes `/` as `\/`. `&` is `\u0026`, as Go's encoder writes it.
    private static func logpush(_ query: String?, escapeSlashes: Bool) -> String {
        var uri = query.map { "/app/report/v1?\($0)" } ?? "/app/assets/index.js"
        uri = uri.replacingOccurrences(of: "&", with: #"\u0026"#)
        if escapeSlashes { uri = uri.replacingOccurrences(of: "/", with: #"\/"#) }
        return #"{"CacheCacheStatus":"miss","ClientIP":"127.0.0.1","ClientRequestHost":"cdn.example.com","#
            + #""ClientRequestMethod":"GET","ClientRequestPath":"/app/report/v1","ClientRequestProtocol":"HTTP/1.1","#
            + #""ClientRequestURI":"\#(uri)","ClientRequestUserAgent":"pkgctl/0.1.0","EdgeEndTimestamp":"2026-11-25T17:00:00Z","#
            + #""EdgeResponseBytes":412,"EdgeResponseStatus":404,"EdgeStartTimestamp":"2026-11-25T17:00:00Z","RayID":"8c1a2b3c4d5e6f70"}"#
            + "\n"
    }

    /// Each report's query, with the site's own traffic between them.
    private static func lines(_ reports: ArraySlice<OutcomeReport>, _ line: (String?) -> String) -> String {
        reports.map { line(nil) + line($0.query) }.joined()
    }

    private func write(_ text: String, _ name: String) throws -> String {
        try temp.write(Array(text.utf8), to: name)
    }

    /// Gzips `path` with the real gzip, keeping it; returns the .gz path.
    private func gzip(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gzip")
        process.arguments = ["-kf", path]
        process.standardInput = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "gzip \(path) exited \(process.terminationStatus)")
        return path + ".gz"
    }

    private func report(_ arguments: [String], stdin: String? = nil) throws -> PkgctlProcess.Result {
        try PkgctlProcess.run(["fleet", "report"] + arguments, stdin: stdin)
    }

    /// pkgctl's text and JSON tallies of the same reports in nginx's combined format.
    private func nginxTally() throws -> (text: String, json: String) {
        let log = try write(Self.lines(Self.reports[...], Self.combined), "nginx-reference.log")
        let text = try report([log]), json = try report(["--json", log])
        #expect(text.status == 0 && text.stdout.hasSuffix("12 reports, 0 unreadable report lines\n"), "\(text.stdout)\(text.stderr)")
        return (text.stdout, json.stdout)
    }

    // MARK: Tests

    @Test func cloudFrontLogpushAndNginxGiveTheSameTally() throws {
        let reference = try nginxTally()
        // CloudFront: two header blocks, the second naming its fields in another order (and fewer).
        let reordered = ["cs-uri-query", "date", "time", "cs-uri-stem", "sc-status"]
        var cloudFront = Self.cloudFrontHeader + Self.lines(Self.reports[..<6], { Self.cloudFront($0) })
        cloudFront += "#Version: 1.0\n#Fields: \(reordered.joined(separator: " "))\n"
        for report in Self.reports[6...] {
            cloudFront += [Self.cloudFrontEncoded(report.query), "2026-11-25", "17:00:01", "/app/report/v1", "404"]
                .joined(separator: "\t") + "\n"
        }
        let logpush = Self.lines(Self.reports[..<6], { Self.logpush($0, escapeSlashes: false) })
            + Self.lines(Self.reports[6...], { Self.logpush($0, escapeSlashes: true) })
        for (name, text) in [("cloudfront.log", cloudFront), ("logpush.json", logpush)] {
            let log = try write(text, name)
            let plain = try report([log]), json = try report(["--json", log])
            #expect(plain.status == 0 && plain.stderr.isEmpty, "\(name): \(plain.stderr)")
            #expect(plain.stdout == reference.text, "\(name)")
            #expect(json.stdout == reference.json, "\(name)")
        }
        #expect(reference.text.contains("demo 2.0.0+b1: 6 devices"), "\(reference.text)")
        #expect(reference.text.contains("failed (disk%full "), "\(reference.text)")
    }

    @Test func gzippedLogsAreToldByTheirBytesAlsoOnStdinAndTwoMembersReadWhole() throws {
        let reference = try nginxTally()
        let first = try write(Self.cloudFrontHeader + Self.lines(Self.reports[..<6], { Self.cloudFront($0) }), "part1")
        let second = try write(Self.cloudFrontHeader + Self.lines(Self.reports[6...], { Self.cloudFront($0) }), "part2")
        // CloudFront's files are gzip members one after another: a name without .gz, too.
        let members = try Data(contentsOf: URL(fileURLWithPath: gzip(first))) + Data(contentsOf: URL(fileURLWithPath: gzip(second)))
        let concatenated = temp.path("E2QWRUHEXAMPLE.2026-11-25-17.d111111a")
        try members.write(to: URL(fileURLWithPath: concatenated))
        let fromFile = try report([concatenated])
        #expect(fromFile.status == 0 && fromFile.stdout == reference.text, "\(fromFile.stdout)\(fromFile.stderr)")
        let fromStdin = try report(["--json", "-"], stdin: concatenated)
        #expect(fromStdin.status == 0 && fromStdin.stdout == reference.json, "\(fromStdin.stdout)\(fromStdin.stderr)")

        let logpush = try gzip(write(Self.lines(Self.reports[...], { Self.logpush($0, escapeSlashes: true) }), "logpush.log"))
        #expect(try report([logpush]).stdout == reference.text)
    }

    @Test func aLargeGzippedLogIsReadAcrossManyReads() throws {
        // ~3 MB of lines, about 150 KB gzipped: output and input both span several 1 MiB reads.
        var text = ""
        for index in 0..<20_000 {
            let report = OutcomeReport(package: "demo", release: "1.0.0", from: nil, outcome: index % 100 == 0 ? .failed : .installed,
                                       errorCode: index % 100 == 0 ? "checksumMismatch" : nil,
                                       device: String(format: "d%015d", index), client: "0.1.0")
            text += Self.combined(report.query)
        }
        let result = try report([gzip(write(text, "large.log"))])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("channel /app:\ndemo 1.0.0: 20000 devices, 19800 installed, 0 rolled back, 200 failed (checksumMismatch 200)"))
        #expect(result.stdout.hasSuffix("\n20000 reports, 0 unreadable report lines\n"), "\(result.stdout)")
    }

    @Test func aDirectoryOfMixedFormatsAddsUp() throws {
        let reference = try nginxTally()
        let folder = try temp.makeDirectory("logs")
        let parts = [Self.reports[0..<3], Self.reports[3..<6], Self.reports[6..<9], Self.reports[9...]]
        _ = try write(Self.lines(parts[0], Self.combined), "logs/access.log")
        _ = try gzip(write(Self.cloudFrontHeader + Self.lines(parts[1], { Self.cloudFront($0) }), "logs/cloudfront"))
        try FileManager.default.removeItem(atPath: temp.path("logs/cloudfront"))
        _ = try write(Self.lines(parts[2], { Self.logpush($0, escapeSlashes: false) }), "logs/logpush.json")
        _ = try gzip(write(Self.lines(parts[3], Self.combined), "logs/access.log.1"))
        try FileManager.default.removeItem(atPath: temp.path("logs/access.log.1"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { "\(folder)/\($0)" }
        #expect(files.count == 4)
        let result = try report(files)
        #expect(result.status == 0 && result.stdout == reference.text, "\(result.stdout)\(result.stderr)")
    }

    @Test func aCloudFrontRequestWithoutAQueryIsNoReport() throws {
        let log = try write(Self.cloudFrontHeader + Self.cloudFront(nil, stem: "/app/report/v1") + Self.cloudFront(Self.reports[0].query)
                            + Self.cloudFront("p=demo%25zz&a=%ZZ"), "cloudfront.log")
        let result = try report([log])
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix("1 reports, 1 unreadable report lines\n"), "\(result.stdout)")
    }

    @Test func aCorruptOrCutGzipIsAOneLineErrorNamingIt() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: gzip(write(Self.lines(Self.reports[...], Self.combined), "a.log"))))
        let cut = temp.path("cut.log.gz")
        try whole.prefix(whole.count - 12).write(to: URL(fileURLWithPath: cut))
        var flipped = whole
        flipped[flipped.count / 2] ^= 0xff
        flipped[flipped.count / 2 + 1] ^= 0x55
        let corrupt = temp.path("corrupt.log.gz")
        try flipped.write(to: URL(fileURLWithPath: corrupt))
        for (path, reason) in [(cut, "gzip data cut short"), (corrupt, "corrupt gzip data")] {
            let result = try report([path])
            #expect(result.status == 1)
            #expect(result.stderr.hasPrefix("pkgctl: \(path): \(reason)"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }
}
