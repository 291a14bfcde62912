import CCurl

import Glibc

/// Which failures are worth another attempt, and how long to wait before it.
///
/// Retried: timeouts (stalls included), refused or failed connections, cut or partial
/// transfers, receive and send errors, an empty reply, and HTTP 408, 429 and 5xx.
/// Everything else (other 4xx, TLS verification, a bad URL or protocol) fails at once.
/// Waits are exponential from the base delay; a 429 or 503 with `Retry-After` waits
/// at least that long, or fails at once when it asks for more than
/// ``TransferOptions/maxRetryAfter``.
struct RetryPolicy: Sendable {
    /// Attempts in all, at least one.
    let maxAttempts: Int
    /// Seconds before the first retry.
    let baseDelay: Double

    init(_ options: TransferOptions) {
        maxAttempts = max(1, options.maxAttempts)
        baseDelay = max(0, options.retryBaseDelay)
    }

    /// Seconds to wait after the failed attempt number `attempt` (1-based): base × 2^(attempt−1).
    func delay(afterAttempt attempt: Int) -> Double {
        baseDelay * Double(1 << min(max(attempt - 1, 0), 16))
    }

    /// Whether a libcurl failure may go away on another attempt.
    static func isRetryable(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_OPERATION_TIMEDOUT, CURLE_COULDNT_CONNECT, CURLE_PARTIAL_FILE,
            CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_HTTP2,
            CURLE_HTTP2_STREAM, CURLE_COULDNT_RESOLVE_HOST:
            return true
        default:
            return false
        }
    }

    /// Whether an HTTP status may change on another attempt: 408, 429 and 5xx.
    static func isRetryable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// Sleeps the calling thread for `seconds`.
    static func sleep(seconds: Double) {
        guard seconds > 0 else { return }
        let nanoseconds = Int((seconds * 1e9).rounded())
        var request = timespec(tv_sec: nanoseconds / 1_000_000_000, tv_nsec: nanoseconds % 1_000_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }
}
