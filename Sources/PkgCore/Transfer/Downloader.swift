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
    /// Where each transfer is counted, and as what; nil: not counted.
    private var metering: (meter: TransferMeter, kind: TransferMeter.Kind)?

    /// Creates a downloader with `options`.
    public init(options: TransferOptions = TransferOptions()) {
        self.options = options
    }

    /// This downloader, its every transfer counted in `meter` as `kind` (nil: not counted).
    public func metered(by meter: TransferMeter?, as kind: TransferMeter.Kind) -> Downloader {
        var metered = self
        metered.metering = meter.map { ($0, kind) }
        return metered
    }

    /// Runs one attempt's transfer on `easy`, counting it in the meter.
    private func perform(_ easy: EasyHandle) -> CURLcode {
        let code = easy.perform()
        count(easy)
        return code
    }

    /// Counts the transfer `easy` just ended in the meter, if any.
    func count(_ easy: EasyHandle) {
        if let metering { metering.meter.record(metering.kind, bytes: easy.receivedBytes) }
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
            let code = perform(easy)
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
            let code = perform(easy)
            if let stop { return stop }
            if code != CURLE_OK {
                return failure(url, code, easy, headers: headers)
            }
            if !bodyStarted && !startBody(), let stop { return stop }
            return .succeeded(())
        }
        try sink.finish(expectedSHA256: expectedSHA256)
    }
}
