import CCurl
import FoundationEssentials

/// What a failed attempt means: the errors a ``Downloader`` reports, each naming the
/// URL, and whether the attempt may be made again.
extension Downloader {
    /// libcurl's own account of a failed transfer of `url`.
    func transferError(_ url: String, _ code: CURLcode, _ easy: EasyHandle) -> PkgError {
        PkgError(transferFailed: "GET \(url): \(Curl.describe(code, detail: easy.errorDetail))", curlCode: code)
    }

    /// A failed attempt for libcurl's `code`, said in the terms of what happened: the
    /// deadline passed, the origin was too slow, its header too large, or a redirect
    /// left https; else libcurl's own account.
    func failure<Value>(_ url: String, _ code: CURLcode, _ easy: EasyHandle,
                        headers: ResponseHeaders) -> AttemptResult<Value> {
        switch code {
        case CURLE_OPERATION_TIMEDOUT where (options.deadline?.remainingMilliseconds ?? .max) < 50:
            // libcurl's total-time limit is what is left of the deadline, in whole ms.
            return .failed(options.deadline!.exceeded(url), retryable: false)
        case CURLE_OPERATION_TIMEDOUT where easy.errorDetail.hasPrefix("Operation too slow"):
            let error = PkgError(.tooSlow, "GET \(url): slower than \(options.minimumRate) bytes/s over "
                                 + "\(options.stallTimeout) s (the minimum rate); cut off")
            return .failed(error, retryable: true)
        case CURLE_OUT_OF_MEMORY where !headers.isComplete:
            // libcurl's only word for a header line past CURL_MAX_HTTP_HEADER (100 KB).
            let error = PkgError(.responseTooLarge, "GET \(url): the origin's response header is larger than "
                                 + "libcurl's limit of 100 KB a line; refused")
            return .failed(error, retryable: false)
        case CURLE_UNSUPPORTED_PROTOCOL where headers.isComplete && (300...399).contains(headers.status):
            let location = (headers["location"] ?? "").escapedForMessage
            let allowed = Self.redirectProtocols(from: url) == "https" ? "an https URL may redirect only to https"
                : "a redirect may lead only to http or https"
            let error = PkgError(.transferFailed, "GET \(url): refused the redirect to '\(location)': \(allowed)")
            return .failed(error, retryable: false)
        default:
            return .failed(transferError(url, code, easy), retryable: RetryPolicy.isRetryable(code))
        }
    }

    /// A failed attempt for an HTTP status; 429 and 503 that carry `Retry-After` are throttled.
    func statusFailure<Value>(_ url: String, _ status: Int, headers: ResponseHeaders? = nil,
                              retryable: Bool? = nil) -> AttemptResult<Value> {
        let error = PkgError(.httpStatus, "GET \(url): HTTP \(status)", httpStatus: status)
        if status == 429 || status == 503, let delay = headers?.retryAfter(now: Date()) {
            return .throttled(error, retryAfter: delay)
        }
        return .failed(error, retryable: retryable ?? RetryPolicy.isRetryable(status: status))
    }
}
