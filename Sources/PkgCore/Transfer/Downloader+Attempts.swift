import CCurl
import FoundationEssentials
import Glibc

/// One transfer's attempts: retries with backoff within the deadline, and the handles they run on.
extension Downloader {
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
