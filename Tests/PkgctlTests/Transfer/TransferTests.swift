import Foundation
import Testing

@testable import PkgCore
@testable import PkgPublishing

/// `Downloader` against a real nginx on 127.0.0.1 (see `NginxOrigin` for the paths it serves).
@Suite struct TransferTests {
    /// 256 KiB of deterministic, incompressible-looking bytes.
    static let payload: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<262_144).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }()

    /// Fast retries and a short stall timeout, for tests.
    static let quick = TransferOptions(connectTimeout: 5, stallTimeout: 5, maxAttempts: 4, retryBaseDelay: 0.05)

    let root: TemporaryDirectory
    let output: TemporaryDirectory
    let payloadSHA256: String

    init() throws {
        root = try TemporaryDirectory(prefix: "pkgctl-root")
        output = try TemporaryDirectory(prefix: "pkgctl-out")
        let file = try root.write(Self.payload, to: "demo-1.0.0.zip")
        try root.write(Array(#"{"schema":1}"#.utf8), to: "manifest.json")
        // An independent oracle for the hash: coreutils, not the code under test.
        payloadSHA256 = String(try runCommand("/usr/bin/sha256sum", [file]).prefix(64))
    }

    /// Downloads the payload from `url` on a dedicated thread.
    func download(
        _ url: String, options: TransferOptions = quick, size: UInt64? = nil, sha256: String? = nil,
        to path: String? = nil, progress: (@Sendable (UInt64, UInt64) -> Void)? = nil
    ) async throws -> String {
        let path = path ?? output.path("download.zip")
        let size = size ?? UInt64(Self.payload.count)
        let sha256 = sha256 ?? payloadSHA256
        try await onDedicatedThread {
            try Downloader(options: options).download(
                from: url, to: path, expectedSize: size, expectedSHA256: sha256, progress: progress)
        }
        return path
    }

    func contents(_ path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map(Array.init) ?? []
    }

    // MARK: - Happy paths

    @Test func downloadsOverHTTPWithProgress() async throws {
        let origin = try NginxOrigin(root: root.path)
        let seen = Recorder()
        let path = try await download(origin.baseURL + "/demo-1.0.0.zip") { received, total in
            seen.record(received, total)
        }
        #expect(contents(path) == Self.payload)
        let calls = seen.calls
        #expect(!calls.isEmpty)
        #expect(calls.last?.received == UInt64(Self.payload.count))
        #expect(calls.allSatisfy { $0.total == UInt64(Self.payload.count) })
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.received <= $1.received })
    }

    @Test func downloadsOverHTTPSTrustingTheGeneratedCA() async throws {
        let origin = try NginxOrigin(root: root.path, tls: true)
        #expect(origin.baseURL.hasPrefix("https://127.0.0.1:"))
        var options = Self.quick
        let caFile = try #require(origin.caFile)
        options.caFile = caFile
        let path = try await download(origin.baseURL + "/demo-1.0.0.zip", options: options)
        #expect(contents(path) == Self.payload)
    }

    @Test func httpsWithoutTheCAFailsWithATLSError() async throws {
        let origin = try NginxOrigin(root: root.path, tls: true, accessLog: true)
        let url = origin.baseURL + "/demo-1.0.0.zip"
        let error = try #require(await #expect(throws: PkgError.self) { try await download(url) })
        #expect(error.code == .transferFailed)
        #expect(error.message.hasPrefix("GET \(url): "))
        #expect(error.message.contains("certificate"))
        #expect(!error.message.contains("attempts"), "a TLS failure is not retried")
        #expect(origin.settledAccessLog().isEmpty, "no request got past the handshake")
    }

    @Test func downloadsAFileURL() async throws {
        let path = try await download("file://" + root.path("demo-1.0.0.zip"))
        #expect(contents(path) == Self.payload)
    }

    @Test func conditionalFetchAnswersNotModifiedWithStoredValidators() async throws {
        try backdate(root.path("manifest.json"))
        let origin = try NginxOrigin(root: root.path)
        let url = origin.baseURL + "/manifest.json"
        let downloader = Downloader(options: Self.quick)

        let first = try await onDedicatedThread { try downloader.fetch(url, validators: nil) }
        guard case .fetched(let body, let validators) = first else {
            Issue.record("expected a body, got \(first)")
            return
        }
        #expect(body == Array(#"{"schema":1}"#.utf8))
        #expect(validators.etag != nil)
        #expect(validators.lastModified != nil)

        let second = try await onDedicatedThread { try downloader.fetch(url, validators: validators) }
        guard case .notModified = second else {
            Issue.record("expected .notModified, got \(second)")
            return
        }
        let byDate = HTTPValidators(lastModified: validators.lastModified)
        let third = try await onDedicatedThread { try downloader.fetch(url, validators: byDate) }
        guard case .notModified = third else {
            Issue.record("expected .notModified for If-Modified-Since, got \(third)")
            return
        }
        let stale = HTTPValidators(etag: "\"stale\"")
        let fourth = try await onDedicatedThread { try downloader.fetch(url, validators: stale) }
        guard case .fetched(let again, _) = fourth else {
            Issue.record("expected a body for a stale ETag, got \(fourth)")
            return
        }
        #expect(again == body)
    }

    @Test func fetchOfAMissingURLFailsWithItsStatus() async throws {
        let origin = try NginxOrigin(root: root.path)
        let url = origin.baseURL + "/missing.json"
        let error = try #require(
            await #expect(throws: PkgError.self) {
                try await onDedicatedThread { try Downloader(options: Self.quick).fetch(url, validators: nil) }
            })
        #expect(error.code == .httpStatus)
        #expect(error.message == "GET \(url): HTTP 404")
        #expect(error.httpStatus == 404)
        #expect(error.isNotFound)
    }

    /// "Not found" comes from the status or libcurl's result, never from the message's words.
    @Test func notFoundIsTheStatusOrCurlsResultNotTheMessage() async throws {
        let missing = try #require(await #expect(throws: PkgError.self) {
            try await download("file://" + root.path("nope.zip"))
        })
        #expect(missing.code == .transferFailed)
        #expect(missing.isNotFound)

        let origin = try NginxOrigin(root: root.path)
        var options = Self.quick
        options.maxAttempts = 2
        let failing = try #require(await #expect(throws: PkgError.self) {
            try await download(origin.baseURL + "/always-500/demo-1.0.0.zip", options: options)
        })
        #expect(failing.httpStatus == 500)
        #expect(failing.message.hasSuffix("(after 2 attempts)"), "the retry's note keeps the status")
        #expect(!failing.isNotFound)

        #expect(!PkgError(.transferFailed, missing.message).isNotFound)
        #expect(!PkgError(.httpStatus, "GET http://127.0.0.1/x: HTTP 404").isNotFound)
    }

    // MARK: - Checks

    @Test func aWrongChecksumNamesBothDigests() async throws {
        let origin = try NginxOrigin(root: root.path)
        let wrong = String(repeating: "ab", count: 32)
        let error = try #require(
            await #expect(throws: PkgError.self) {
                try await download(origin.baseURL + "/demo-1.0.0.zip", sha256: wrong)
            })
        #expect(error.code == .checksumMismatch)
        #expect(error.message.contains(wrong))
        #expect(error.message.contains(payloadSHA256))
    }

    @Test func moreBytesThanExpectedAbortWhileStreaming() async throws {
        let origin = try NginxOrigin(root: root.path)
        let expected = UInt64(Self.payload.count / 4)
        let path = output.path("download.zip")
        let error = try #require(
            await #expect(throws: PkgError.self) {
                try await download(origin.baseURL + "/demo-1.0.0.zip", size: expected, to: path)
            })
        #expect(error.code == .sizeMismatch)
        #expect(error.message.contains("more than the expected \(expected) bytes"))
        #expect(UInt64(contents(path).count) <= expected, "nothing past the expected size is written")
    }

    @Test func fewerBytesThanExpectedFail() async throws {
        let origin = try NginxOrigin(root: root.path)
        let expected = UInt64(Self.payload.count + 1)
        let error = try #require(
            await #expect(throws: PkgError.self) {
                try await download(origin.baseURL + "/demo-1.0.0.zip", size: expected)
            })
        #expect(error.code == .sizeMismatch)
        #expect(error.message.contains("expected \(expected) bytes, received \(Self.payload.count)"))
    }

    @Test func aFailedWriteNamesThePathAsInsufficientSpace() async throws {
        let origin = try NginxOrigin(root: root.path)
        let error = try #require(
            await #expect(throws: PkgError.self) {
                try await download(origin.baseURL + "/demo-1.0.0.zip", to: "/dev/full")
            })
        #expect(error.code == .insufficientSpace)
        #expect(error.message.contains("/dev/full"))
    }

    // MARK: - Retries

    /// Downloads the payload from `url`, timed on the downloading thread itself (the await
    /// around it can wait for a cooperative-pool thread while other suites run).
    func timedDownload(_ url: String) async throws -> (error: PkgError?, elapsed: Duration) {
        let destination = output.path("timed.zip")
        let size = UInt64(Self.payload.count), sha256 = payloadSHA256
        return try await onDedicatedThread { () -> (PkgError?, Duration) in
            let clock = ContinuousClock()
            let started = clock.now
            do {
                try Downloader(options: Self.quick).download(from: url, to: destination,
                                                             expectedSize: size, expectedSHA256: sha256)
                return (nil, clock.now - started)
            } catch let error as PkgError {
                return (error, clock.now - started)
            }
        }
    }

    @Test func a503WithRetryAfterIsWaitedFor() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        let (error, elapsed) = try await timedDownload(origin.baseURL + "/busy-once/demo-1.0.0.zip")
        #expect(error == nil)
        #expect(contents(output.path("timed.zip")) == Self.payload)
        #expect(elapsed >= .seconds(2), "the origin asked for 2 s; the backoff alone is 0.05 s (took \(elapsed))")
        #expect(eventually { origin.accessLog().map { $0.split(separator: " ")[1] } == ["503", "200"] })
    }

    @Test func aRetryAfterBeyondTheLimitFailsAtOnceNamingTheWait() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        let (error, elapsed) = try await timedDownload(origin.baseURL + "/busy-for-an-hour/demo-1.0.0.zip")
        #expect(elapsed < .seconds(5))
        #expect(error?.message == "GET \(origin.baseURL)/busy-for-an-hour/demo-1.0.0.zip: HTTP 429 "
                + "(the origin asks to retry after 3600 s)")
        #expect(eventually { origin.accessLog().count == 1 }, "one request, no retries")
    }

    @Test func aParallelBatchDeliversEveryGoodFileAndReturnsTheBadOnes() async throws {
        let files = (0..<8).map { i in (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* (i + 3)) } }
        var items: [ParallelDownload.Item] = []
        for (i, bytes) in files.enumerated() {
            try root.write(bytes, to: "f\(i).bin")
            items.append(.init(url: "", path: output.path("f\(i).bin"), size: UInt64(bytes.count),
                               sha256: String(try runCommand("/usr/bin/sha256sum", [root.path("f\(i).bin")]).prefix(64))))
        }
        let origin = try NginxOrigin(root: root.path, tls: true, accessLog: true)
        for i in items.indices { items[i].url = origin.baseURL + "/f\(i).bin" }
        items[5].url = origin.baseURL + "/missing.bin"                  // 404
        items[6].sha256 = String(repeating: "0", count: 64)            // wrong hash
        let batch = items
        let options = TransferOptions(caFile: origin.caFile, connectTimeout: 5, stallTimeout: 5, maxAttempts: 1)
        let (failed, completed) = try await onDedicatedThread { () -> ([String], [String]) in
            var completed: [String] = []
            let failed = try ParallelDownload(downloader: Downloader(options: options), parallel: 4)
                .run(batch) { completed.append($0.path) }
            return (failed.map(\.path), completed)
        }
        #expect(Set(failed) == [items[5].path, items[6].path])
        #expect(Set(completed) == Set(items.map(\.path)).subtracting(failed))
        for i in [0, 1, 2, 3, 4, 7] { #expect(contents(items[i].path) == files[i], "f\(i)") }
        #expect(!FileManager.default.fileExists(atPath: items[5].path) && !FileManager.default.fileExists(atPath: items[6].path))
        #expect(eventually { origin.accessLog().count == 8 })
        let connections = Set(origin.accessLog().map { $0.split(separator: " ").last.map(String.init) ?? "" })
        #expect(connections.count == 1, "eight transfers multiplexed on one HTTP/2 connection: \(connections)")
    }

    @Test func resumingContinuesWhatTheFileHoldsOverHTTPAndFile() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        for url in [origin.baseURL + "/demo-1.0.0.zip", "file://" + root.path("demo-1.0.0.zip")] {
            let path = output.path("resumed.zip")
            try Data(Self.payload.prefix(100_000)).write(to: URL(fileURLWithPath: path))
            let size = UInt64(Self.payload.count), sha256 = payloadSHA256
            try await onDedicatedThread {
                try Downloader(options: Self.quick).download(from: url, to: path, expectedSize: size,
                                                             expectedSHA256: sha256, resuming: true)
            }
            #expect(contents(path) == Self.payload, "\(url)")
        }
        #expect(eventually { origin.accessLog().first?.contains(" 206 \"bytes=100000-\" ") == true }, "\(origin.accessLog())")
    }

    @Test func retryAfterAcceptsSecondsAndHTTPDates() {
        var headers = ResponseHeaders()
        for line in ["HTTP/1.1 503 Service Unavailable\r\n", "Retry-After: Wed, 21 Oct 2015 07:28:30 GMT\r\n", "\r\n"] {
            headers.take(line)
        }
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // 07:28:00 that day
        #expect(headers.retryAfter(now: now) == 30)
        var seconds = ResponseHeaders()
        for line in ["HTTP/1.1 429 Too Many Requests\r\n", "Retry-After: 120\r\n", "\r\n"] { seconds.take(line) }
        #expect(seconds.retryAfter(now: now) == 120)
        func parsed(_ text: String) -> Double? {
            var other = ResponseHeaders()
            for line in ["HTTP/1.1 503 Service Unavailable\r\n", "Retry-After: \(text)\r\n", "\r\n"] { other.take(line) }
            return other.retryAfter(now: now)
        }
        #expect(parsed("Wednesday, 21-Oct-15 07:28:30 GMT") == 30, "RFC 850")
        #expect(parsed("Wed Oct 21 07:28:30 2015") == 30, "asctime")
        #expect(parsed("99999999999999999999999").map { $0 > 1e12 } == true, "beyond any cap, not ignored")
        #expect(parsed("soon") == nil)
    }

    /// Found by the response-headers fuzz target (Fuzz/regressions/response-headers): an
    /// obsolete folded line continuing an empty value gave it a leading space, so an
    /// `ETag:` folded onto its next line no longer matched the tag.
    @Test func aFoldedLineContinuingAnEmptyValueAddsNoLeadingSpace() {
        var headers = ResponseHeaders()
        for line in ["HTTP/1.1 200 OK\r\n", "ETag:\r\n", "  \"abc\"\r\n", "X-Long: one\r\n", "\ttwo\r\n", "\r\n"] {
            headers.take(line)
        }
        #expect(headers["etag"] == "\"abc\"")
        #expect(headers["x-long"] == "one two")
    }

    @Test func always500FailsAfterMaxAttempts() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        let url = origin.baseURL + "/always-500/demo-1.0.0.zip"
        var options = Self.quick
        options.maxAttempts = 3
        let error = try #require(await #expect(throws: PkgError.self) { try await download(url, options: options) })
        #expect(error.code == .httpStatus)
        #expect(error.message == "GET \(url): HTTP 500 (after 3 attempts)")
        #expect(eventually { origin.accessLog().count == 3 })
    }

    @Test func aNotFoundFailsAtOnce() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        let url = origin.baseURL + "/missing.zip"
        let error = try #require(await #expect(throws: PkgError.self) { try await download(url) })
        #expect(error.code == .httpStatus)
        #expect(error.message == "GET \(url): HTTP 404")
        #expect(origin.settledAccessLog().count == 1, "a 404 is not retried")
    }

    @Test func aCutTransferResumesWithARange() async throws {
        let origin = try NginxOrigin(root: root.path, accessLog: true)
        let path = try await download(origin.baseURL + "/cut-once/demo-1.0.0.zip")
        #expect(contents(path) == Self.payload)
        #expect(origin.truncatedRequestCount == 1)
        // nginx logs a request after answering it: wait for the second line.
        #expect(eventually { origin.accessLog().count == 2 })
        let log = origin.accessLog()
        try #require(log.count == 2, "\(log)")
        #expect(log[0].hasPrefix("/cut-once/demo-1.0.0.zip 200 \"-\""))
        // The resumed request asks for the rest only, and gets 206 with just those bytes.
        let fields = log[1].split(separator: " ")
        #expect(fields[1] == "206")
        let range = fields[2].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let start = try #require(range.hasPrefix("bytes=") ? UInt64(range.dropFirst(6).dropLast()) : nil)
        #expect(range.hasSuffix("-"))
        #expect(start > 0 && start < UInt64(Self.payload.count))
        #expect(UInt64(fields[3]) == UInt64(Self.payload.count) - start)
    }

    @Test func aRangeAnsweredWith200RestartsFromZero() async throws {
        // No nginx here: the truncating origin ignores Range, cuts the first answer and
        // sends the whole file with 200 to the resumed request.
        let truncating = try TruncatingOrigin(root: root.path, cutting: 1)
        defer { truncating.stop() }
        let seen = Recorder()
        let path = try await download("http://127.0.0.1:\(truncating.port)/demo-1.0.0.zip") { received, total in
            seen.record(received, total)
        }
        #expect(contents(path) == Self.payload)
        #expect(truncating.requestCount == 2)
        #expect(seen.calls.contains { $0.received == 0 }, "progress restarted from zero")
    }

    @Test func aRefusedConnectionFailsNamingTheURL() async throws {
        let port = try Loopback.freePort()  // closed again: nothing listens there
        let url = "http://127.0.0.1:\(port)/demo-1.0.0.zip"
        var options = Self.quick
        options.maxAttempts = 2
        let error = try #require(await #expect(throws: PkgError.self) { try await download(url, options: options) })
        #expect(error.code == .transferFailed)
        #expect(error.message.hasPrefix("GET \(url): Failed to connect to 127.0.0.1 port \(port) after "), "\(error.message)")
        #expect(error.message.hasSuffix(" ms: Couldn't connect to server (after 2 attempts)"), "\(error.message)")
    }

    @Test func aStallTripsTheLowSpeedTimeout() async throws {
        let origin = try NginxOrigin(root: root.path)
        var options = Self.quick
        options.stallTimeout = 1
        options.maxAttempts = 1
        let url = origin.baseURL + "/slow/demo-1.0.0.zip"
        let destination = output.path("stalled.zip")
        let size = UInt64(Self.payload.count), sha256 = payloadSHA256, stallOptions = options
        // Timed on the downloading thread itself: the await around it can wait
        // for a cooperative-pool thread while other suites run.
        let (error, elapsed) = try await onDedicatedThread { () -> (PkgError?, Duration) in
            let clock = ContinuousClock()
            let started = clock.now
            do {
                try Downloader(options: stallOptions).download(from: url, to: destination,
                                                          expectedSize: size, expectedSHA256: sha256)
                return (nil, clock.now - started)
            } catch let error as PkgError {
                return (error, clock.now - started)
            }
        }
        #expect(error?.code == .tooSlow)
        #expect(error?.message.hasPrefix("GET \(url): slower than 1024 bytes/s over ") == true, "\(String(describing: error))")
        #expect(elapsed < .seconds(10))
    }
}

/// Collects progress calls from any thread.
final class Recorder: Sendable {
    private let storage = PosixMutex<[(received: UInt64, total: UInt64)]>([])
    func record(_ received: UInt64, _ total: UInt64) { storage.withLock { $0.append((received, total)) } }
    var calls: [(received: UInt64, total: UInt64)] { storage.withLock { $0 } }
}
