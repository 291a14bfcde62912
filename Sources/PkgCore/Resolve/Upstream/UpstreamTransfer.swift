import CCurl
import Glibc

/// One origin request of the resolver on an ``EasyHandle`` (the one owner of
/// libcurl easy handles), driven by the ``CurlMultiLoop``, which keeps this
/// object alive while its handle is in the multi handle.
final class UpstreamTransfer: @unchecked Sendable {
    let handle: EasyHandle
    let url: String
    private var sink: (any UpstreamTransferSink)?
    private var head = ResponseHeaders()
    /// Set once the response head went to the sink; later header lines are trailers.
    private var announced = false
    private var bodyBytes: Int64 = 0

    /// The `CURL *` the multi loop adds and removes.
    var easy: UnsafeMutableRawPointer { handle.raw }

    /// Hop-by-hop and framing headers that are not forwarded in either direction.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection",
        "proxy-authorization", "proxy-authenticate", "trailer", "host", "content-length", "expect",
    ]

    init(url: String, method: String, headers: [(name: String, value: String)], body: [UInt8],
         caFile: String?, connectTimeoutMilliseconds: Int, sink: any UpstreamTransferSink) throws {
        handle = try EasyHandle()
        self.url = url
        self.sink = sink
        try handle.set(CURLOPT_URL, url)
        try handle.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        try handle.set(CURLOPT_FOLLOWLOCATION, 0)
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds)
        if let caFile { try handle.set(CURLOPT_CAINFO, caFile) }
        // Headers: forwarded as received, minus hop-by-hop; no 100-continue.
        try handle.setHeaders(headers.filter { !Self.hopByHop.contains($0.name.lowercased()) }
            .map { $0.name + ": " + $0.value } + ["Expect:"])
        switch method {
        case "GET": break
        case "HEAD": try handle.set(CURLOPT_NOBODY, 1)
        default:
            if !body.isEmpty || method == "POST" || method == "PUT" || method == "PATCH" {
                try handle.set(CURLOPT_POST, 1)
                try handle.setRequestBody(body)
            }
            if method != "POST" { try handle.set(CURLOPT_CUSTOMREQUEST, method) }
        }
        // The handle belongs to this object, so its callbacks never outlive it.
        handle.onHeader = { [unowned self] line in self.header(line) }
        handle.onBody = { [unowned self] data in self.body(data) }
        handle.admitsBody = { [unowned self] in self.sink?.transferAdmitsBody() ?? true }
    }

    private func header(_ line: String) -> Bool {
        if announced { return true }  // trailers of a chunked body: not part of the head
        head.take(line)
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
            let reason = Curl.describe(code, detail: handle.errorDetail)
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
