import FoundationEssentials
import CCurl

/// Blocking HTTP(S) and file:// transfers for `pkgctl update`, on libcurl.
///
/// Both methods run `curl_easy_perform` on the calling thread and block it for the whole
/// transfer, retries and their waits included. Call them from a dedicated thread (a
/// `Thread`, a `DispatchQueue`, `NIOThreadPool`), never from Swift's cooperative pool,
/// for instance not directly inside an `async` function.
///
/// Every transfer follows up to 5 redirects, allows only http, https and file (redirects
/// only to http and https, and from https only to https), sends `User-Agent: pkgctl/1`,
/// and gives up on a connection after ``TransferOptions/connectTimeout`` seconds, on a
/// transfer that stays below ``TransferOptions/minimumRate`` bytes/s for
/// ``TransferOptions/stallTimeout`` seconds, and on any transfer still running at
/// ``TransferOptions/deadline``. Retryable failures (see
/// ``download(from:to:expectedSize:expectedSHA256:compressed:resuming:progress:)``) are tried again up to
/// ``TransferOptions/maxAttempts`` times in all, waiting ``TransferOptions/retryBaseDelay``
/// seconds before the first retry and twice as long before each next one.
///
/// ```swift
/// let downloader = Downloader(options: TransferOptions(caFile: caPath))
/// try downloader.download(
///     from: "https://bundles.example/demo-1.0.0.zip", to: "staging/demo-1.0.0.zip",
///     expectedSize: 48_213, expectedSHA256: "9f86d0…")
/// ```
public struct Downloader: Sendable {
    /// The settings every transfer uses.
    public let options: TransferOptions

    /// Creates a downloader with `options`.
    public init(options: TransferOptions = TransferOptions()) {
        self.options = options
    }

    /// GETs `url` (http, https or file) into memory, conditionally on `validators`.
    ///
    /// Sends `If-None-Match` with the stored ETag and `If-Modified-Since` with the stored
    /// Last-Modified; a 304 answer gives ``ConditionalFetch/notModified``, a 2xx answer the
    /// body with the response's validators (none when they are too weak to stand for it,
    /// see ``ResponseHeaders``). Compressed encodings are accepted and decoded; more than
    /// `maxBytes` bytes after decoding stop the transfer (`.responseTooLarge`), so an
    /// endless or inflating answer costs at most that much memory.
    /// Retries as ``download(from:to:expectedSize:expectedSHA256:compressed:resuming:progress:)`` does.
    /// Blocks the calling thread (see ``Downloader``).
    ///
    /// ```swift
    /// switch try downloader.fetch(manifestURL, validators: state.manifestValidators) {
    /// case .notModified: break
    /// case .fetched(let body, let validators): try apply(body); state.manifestValidators = validators
    /// }
    /// ```
    ///
    /// - Throws: ``PkgError`` `.httpStatus` for another status ("GET <url>: HTTP 404"),
    ///   `.transferFailed` when libcurl fails (the message names the URL and libcurl's reason),
    ///   `.responseTooLarge`, `.tooSlow`, `.deadlineExceeded`.
    public func fetch(_ url: String, validators: HTTPValidators?, maxBytes: Int = .max) throws -> ConditionalFetch {
        let easy = try makeHandle(url: url)
        try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        var conditions: [String] = []
        if let etag = validators?.etag { conditions.append("If-None-Match: \(etag)") }
        if let date = validators?.lastModified { conditions.append("If-Modified-Since: \(date)") }
        try easy.setHeaders(conditions)

        return try withRetries {
            var headers = ResponseHeaders()
            var body: [UInt8] = []
            var rejectedStatus: Int?
            var tooLarge = false
            easy.onHeader = { headers.take($0); return true }
            easy.onBody = { bytes in
                let status = easy.responseCode
                guard Self.isSuccess(status) else {
                    rejectedStatus = status
                    return false
                }
                guard bytes.count <= maxBytes - body.count else {
                    tooLarge = true
                    return false
                }
                body.append(contentsOf: bytes)
                return true
            }
            defer { easy.onHeader = { _ in true }; easy.onBody = { _ in true } }

            try startAttempt(on: easy, url: url)
            let code = easy.perform()
            if tooLarge {
                let error = PkgError(.responseTooLarge,
                                     "GET \(url): the answer is larger than \(maxBytes) bytes (counted after decoding); refused")
                return .failed(error, retryable: false)
            }
            let status = rejectedStatus ?? easy.responseCode
            if rejectedStatus == nil && code != CURLE_OK {
                return failure(url, code, easy, headers: headers)
            }
            if status == 304 { return .succeeded(.notModified) }
            guard Self.isSuccess(status) else { return statusFailure(url, status, headers: headers) }
            return .succeeded(.fetched(body: body, validators: headers.validators))
        }
    }

    /// Downloads `url` (http, https or file) into the file at `path`, which is created or
    /// truncated (kept and continued with `resuming`), and checks its size and SHA-256.
    ///
    /// Bytes are counted and hashed while they stream in, with no second read: the transfer
    /// stops as soon as more than `expectedSize` bytes arrive. `progress(received, total)`
    /// is called after each chunk is written, `total` being `expectedSize`.
    ///
    /// Retried with exponential backoff: timeouts and stalls, failed connections, partial
    /// transfers and cut connections, and HTTP 5xx, 408 and 429. A retry resumes after the
    /// bytes already written with `Range: bytes=N-` (and `If-Range` when the origin sent a
    /// strong ETag or a Last-Modified), continuing the same running hash; when the origin
    /// answers it with 200 instead of 206, the file and hash restart from zero. Other
    /// statuses fail at once. Blocks the calling thread (see ``Downloader``).
    ///
    /// ```swift
    /// try downloader.download(
    ///     from: entry.url, to: stagingPath, expectedSize: entry.size, expectedSHA256: entry.sha256
    /// ) { received, total in reporter.update(received, of: total) }
    /// ```
    ///
    /// - Throws: ``PkgError``, one line naming the URL:
    ///   `.transferFailed` when libcurl fails, e.g. "GET http://127.0.0.1:8123/demo-1.0.0.zip:
    ///   Couldn't connect to server (after 4 attempts)"; `.httpStatus` ("GET <url>: HTTP 404");
    ///   `.sizeMismatch` for too many or too few bytes; `.checksumMismatch` with the expected
    ///   and actual digests; or the filesystem error naming `path` when writing fails
    ///   (`.insufficientSpace` for ENOSPC).
    ///
    /// With `compressed`, the origin may answer a request from byte 0 with a
    /// `Content-Encoding` (gzip, deflate...) that libcurl decodes; size and hash are
    /// those of the decoded bytes. A request that continues (a retry, or `resuming`
    /// what an earlier run left in `path`) asks for the identity encoding, so its
    /// Range counts the same bytes the file holds.
    public func download(
        from url: String,
        to path: String,
        expectedSize: UInt64,
        expectedSHA256: String,
        compressed: Bool = false,
        resuming: Bool = false,
        progress: (@Sendable (_ received: UInt64, _ total: UInt64) -> Void)? = nil
    ) throws {
        try download(from: url, to: path, expectedSize: expectedSize, expectedSHA256: expectedSHA256,
                     compressed: compressed, resuming: resuming, progress: progress, on: try makeHandle(url: url))
    }

    /// ``download(from:to:expectedSize:expectedSHA256:compressed:resuming:progress:)`` on a handle
    /// made by ``makeHandle(url:)`` and used again, so consecutive downloads from one
    /// origin keep their connection alive (libcurl caches it per handle).
    func download(from url: String, to path: String, expectedSize: UInt64, expectedSHA256: String,
                  compressed: Bool = false, resuming: Bool = false, progress: (@Sendable (UInt64, UInt64) -> Void)? = nil,
                  on easy: EasyHandle) throws {
        try easy.set(CURLOPT_URL, url)
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, Self.redirectProtocols(from: url))
        let sink = try DownloadSink(path: path, url: url, expectedSize: expectedSize, progress: progress,
                                    resuming: resuming)
        var entity = HTTPValidators()

        try withRetries {
            if compressed, sink.received == 0 {
                try easy.set(CURLOPT_ACCEPT_ENCODING, "")
            } else {
                try easy.clear(CURLOPT_ACCEPT_ENCODING)
            }
            let offset = sink.received
            if offset > 0 && offset == expectedSize {
                // Everything arrived before the connection failed: let the checks decide.
                return .succeeded(())
            }
            if offset > 0 {
                try easy.set(CURLOPT_RANGE, "\(offset)-")
                try easy.setHeaders(entity.ifRangeValue.map { ["If-Range: \($0)"] } ?? [])
            } else {
                try easy.clear(CURLOPT_RANGE)
                try easy.setHeaders([])
            }

            var headers = ResponseHeaders()
            var bodyStarted = false
            var stop: AttemptResult<Void>?
            // Once the final response's status is known: what its body means (nil: write it).
            func verdict() throws -> AttemptResult<Void>? {
                let status = easy.responseCode
                switch status {
                case 206 where offset > 0 && headers.contentRangeStart == offset:
                    return nil
                case 206:
                    try sink.restart()
                    let range = (headers["content-range"] ?? "none").escapedForMessage
                    let error = PkgError(
                        .httpStatus, "GET \(url): HTTP 206 with Content-Range \(range) for a request from byte \(offset)",
                        httpStatus: 206)
                    return .failed(error, retryable: true)
                case 0 where offset > 0:
                    // file:// honours the Range and has no status: the rest follows.
                    return nil
                case 0, 200...299:
                    // A full body, also when a Range was asked for: start the file and hash again.
                    try sink.restart()
                    entity = headers.validators
                    return nil
                case 416 where offset > 0:
                    // The origin's copy no longer has our bytes: start again from zero.
                    try sink.restart()
                    return statusFailure(url, status, retryable: true)
                default:
                    return statusFailure(url, status, headers: headers)
                }
            }
            func startBody() -> Bool {
                bodyStarted = true
                do { stop = try verdict() } catch { stop = .failed(error, retryable: false) }
                return stop == nil
            }
            easy.onHeader = { headers.take($0); return true }
            easy.onBody = { bytes in
                if !bodyStarted && !startBody() { return false }
                do {
                    try sink.append(bytes)
                    return true
                } catch {
                    stop = .failed(error, retryable: false)
                    return false
                }
            }
            defer { easy.onHeader = { _ in true }; easy.onBody = { _ in true } }

            try startAttempt(on: easy, url: url)
            let code = easy.perform()
            if let stop { return stop }
            if code != CURLE_OK {
                return failure(url, code, easy, headers: headers)
            }
            if !bodyStarted && !startBody(), let stop { return stop }
            return .succeeded(())
        }
        try sink.finish(expectedSHA256: expectedSHA256)
    }

    // MARK: - Attempts

    /// The outcome of one attempt.
    enum AttemptResult<Value> {
        case succeeded(Value)
        case failed(any Error, retryable: Bool)
        /// 429 or 503 with `Retry-After`: wait that long (at least the backoff) before the next attempt.
        case throttled(PkgError, retryAfter: Double)
    }

    /// Runs `attempt` (one transfer) until it succeeds, fails for good, or runs out
    /// of attempts, sleeping the backoff delay between attempts. A final error after
    /// several attempts gets " (after N attempts)" appended to its message. A retry whose
    /// wait would end past the deadline is not made: the last error is thrown as it is.
    func withRetries<Value>(_ attempt: () throws -> AttemptResult<Value>) throws -> Value {
        let policy = RetryPolicy(options)
        var number = 1
        func attemptsNote(_ error: any Error) -> any Error {
            guard number > 1, let error = error as? PkgError else { return error }
            return error.with(message: "\(error.message) (after \(number) attempts)")
        }
        while true {
            switch try attempt() {
            case .succeeded(let value):
                return value
            case .failed(let error, let retryable):
                let delay = policy.delay(afterAttempt: number)
                guard retryable, number < policy.maxAttempts, leavesTimeToRetry(after: delay) else {
                    throw attemptsNote(error)
                }
                RetryPolicy.sleep(seconds: delay)
                number += 1
            case .throttled(let error, let retryAfter):
                let delay = max(retryAfter, policy.delay(afterAttempt: number))
                guard number < policy.maxAttempts, retryAfter <= options.maxRetryAfter,
                      leavesTimeToRetry(after: delay) else {
                    let waited = number > 1 ? " after \(number) attempts" : ""
                    throw error.with(message: "\(error.message) (the origin asks to retry after "
                                     + "\(Int(retryAfter.rounded(.up))) s\(waited))")
                }
                RetryPolicy.sleep(seconds: delay)
                number += 1
            }
        }
    }

    /// Whether a retry after waiting `delay` seconds would start before the deadline.
    private func leavesTimeToRetry(after delay: Double) -> Bool {
        guard let deadline = options.deadline else { return true }
        return Double(deadline.remainingMilliseconds) / 1000 > delay
    }

    /// Gives the next transfer on `easy` what is left of the deadline as its total time;
    /// throws `.deadlineExceeded` naming `url` when nothing is left.
    func startAttempt(on easy: EasyHandle, url: String) throws {
        guard let deadline = options.deadline else { return }
        let remaining = deadline.remainingMilliseconds
        guard remaining > 0 else { throw deadline.exceeded(url) }
        try easy.set(CURLOPT_TIMEOUT_MS, Int(remaining))
    }

    /// A handle for GET `url` with the options every transfer shares.
    func makeHandle(url: String) throws -> EasyHandle {
        let easy = try EasyHandle()
        try easy.set(CURLOPT_URL, url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https,file")
        try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, Self.redirectProtocols(from: url))
        try easy.set(CURLOPT_FOLLOWLOCATION, 1)
        try easy.set(CURLOPT_MAXREDIRS, 5)
        try easy.set(CURLOPT_USERAGENT, "pkgctl/1")
        try easy.set(CURLOPT_CONNECTTIMEOUT, max(1, options.connectTimeout))
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, options.minimumRate))
        try easy.set(CURLOPT_LOW_SPEED_TIME, max(1, options.stallTimeout))
        if let caFile = options.caFile { try easy.set(CURLOPT_CAINFO, caFile) }
        try startAttempt(on: easy, url: url)
        return easy
    }

    /// The schemes a transfer of `url` may be redirected to: https only from https (no
    /// downgrade to plain http on the way), else http and https.
    static func redirectProtocols(from url: String) -> String {
        url.utf8.count >= 8 && asciiCaseInsensitiveEqual(String(url.prefix(8)), "https://") ? "https" : "http,https"
    }

    static func isSuccess(_ status: Int) -> Bool {
        status == 0 || (200...299).contains(status)
    }
}
