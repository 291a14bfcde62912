import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// What an ``UpstreamTransfer`` reports to, on the loop thread.
protocol UpstreamTransferSink: AnyObject {
    /// The origin's status and headers (hop-by-hop ones dropped). Return false to abort.
    func transferReceived(status: Int, headers: [(name: String, value: String)]) -> Bool
    /// A chunk of body. Return false to abort the transfer.
    func transferReceived(_ data: UnsafeRawBufferPointer) -> Bool
    /// The transfer ended; `error` is nil on success.
    func transferCompleted(error: PkgError?, bodyBytes: Int64)
    /// The transfer was cancelled before it ended.
    func transferCancelled()
}

/// One libcurl easy handle, owned by this object and freed in `deinit`. The C
/// callbacks are non-capturing closures that recover the owner through
/// `Unmanaged` (HEADERDATA / WRITEDATA / PRIVATE); the ``CurlMultiLoop`` keeps
/// the owner alive while the handle is in the multi handle.
final class UpstreamTransfer: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let url: String
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var sink: (any UpstreamTransferSink)?
    private var head = ResponseHeaders()
    /// Set once the response head went to the sink; later header lines are trailers.
    private var announced = false
    private var bodyBytes: Int64 = 0
    private let errorBuffer: UnsafeMutablePointer<CChar> = {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        buffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return buffer
    }()

    /// Hop-by-hop and framing headers that are not forwarded in either direction.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection",
        "proxy-authorization", "proxy-authenticate", "trailer", "host", "content-length", "expect",
    ]

    init(url: String, method: String, headers: [(name: String, value: String)], body: [UInt8],
         caFile: String?, connectTimeoutMilliseconds: Int, sink: any UpstreamTransferSink) throws {
        try Curl.initialize()
        guard let easy = curl_easy_init() else { throw PkgError(.transferFailed, "\(url): curl_easy_init failed") }
        self.easy = easy
        self.url = url
        self.sink = sink
        let context = Unmanaged.passUnretained(self).toOpaque()
        var ok = true
        func set(_ code: CURLcode) { if code != CURLE_OK { ok = false } }
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_URL, url))
        set(pkg_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        set(pkg_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        set(pkg_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds))
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, context))
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        if let caFile { set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_CAINFO, caFile)) }
        // Headers: forwarded as received, minus hop-by-hop; no 100-continue.
        var list: UnsafeMutablePointer<curl_slist>? = nil
        for field in headers where !Self.hopByHop.contains(field.name.lowercased()) {
            list = curl_slist_append(list, field.name + ": " + field.value)
        }
        list = curl_slist_append(list, "Expect:")
        headerList = list
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, list))
        switch method {
        case "GET": break
        case "HEAD": set(pkg_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        default:
            if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
                set(pkg_curl_easy_setopt_long(easy, CURLOPT_POST, 1))
                set(pkg_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)))
                set(body.withUnsafeBytes { pkg_curl_easy_setopt_ptr(easy, CURLOPT_COPYPOSTFIELDS, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)) })
            }
            if method != "POST" { set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, method)) }
        }
        set(pkg_curl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<UpstreamTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.header(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
        })
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context))
        set(pkg_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
            let transfer = Unmanaged<UpstreamTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.body(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
        })
        set(pkg_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context))
        if !ok { throw PkgError(.transferFailed, "\(url): libcurl refused an option") }
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    private func header(_ line: UnsafeRawBufferPointer) -> Bool {
        if announced { return true }  // trailers of a chunked body: not part of the head
        head.take(String(decoding: line, as: UTF8.self))
        return head.isComplete ? announce() : true
    }

    /// Hands the head to the sink, without hop-by-hop headers (Content-Length stays: it is the body's size).
    private func announce() -> Bool {
        guard let sink else { return false }
        announced = true
        let forwarded = head.fields.filter {
            let name = $0.name.lowercased()
            return name == "content-length" || !Self.hopByHop.contains(name)
        }
        return sink.transferReceived(status: head.status, headers: forwarded)
    }

    private func body(_ data: UnsafeRawBufferPointer) -> Bool {
        guard let sink else { return false }
        if !announced, !announce() { return false }
        bodyBytes += Int64(data.count)
        return sink.transferReceived(data)
    }

    /// Loop thread: the transfer ended (successfully when `code` is CURLE_OK).
    func completed(_ code: CURLcode) {
        guard let sink else { return }
        if code == CURLE_OK, !announced, !announce() {
            self.sink = nil
            sink.transferCancelled()
            return
        }
        self.sink = nil
        if code == CURLE_OK {
            sink.transferCompleted(error: nil, bodyBytes: bodyBytes)
        } else {
            let detail = String(cString: errorBuffer)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            sink.transferCompleted(error: PkgError(.transferFailed, "\(url): \(reason)"), bodyBytes: bodyBytes)
        }
    }

    /// Loop thread: removed from the multi handle before it ended.
    func cancelled() {
        guard let sink else { return }
        self.sink = nil
        sink.transferCancelled()
    }
}
