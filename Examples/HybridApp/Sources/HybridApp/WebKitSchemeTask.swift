import CWebKitGTK
import PkgCore

/// One `app://` request of WebKit as a resolver task. The resolver calls it on
/// the GLib main thread (``GLibMainLoopExecutor``), so every WebKit call here
/// happens there, and a `stop` made on that thread silences it at once.
///
/// The response head becomes `finish_with_response` with a pipe as its body
/// stream; body bytes go into the pipe and count as consumed once they are in
/// it. WebKit has no stop callback: when it drops the stream (the page went
/// away) the pipe breaks and the task is stopped.
final class WebKitSchemeTask: ResourceTask, @unchecked Sendable {
    let request: ResourceRequest
    /// What the log says of it: resource class and where it is served from.
    let resourceClass: String
    let source: String
    /// Held until it is answered: WebKit's request keeps the body stream, so holding
    /// it longer would keep a dropped stream's pipe open and hide that the page left.
    private var webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>?
    private let handler: SchemeHandler
    private var body: PipeBodyWriter?
    /// The response status (0 before the head) and the body bytes so far.
    private(set) var status = 0
    private(set) var bytes = 0
    private var stopped = false

    init(request: ResourceRequest, webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>, plan: ResolutionPlan,
         handler: SchemeHandler) {
        self.request = request
        self.webRequest = webRequest
        self.handler = handler
        resourceClass = plan.resourceClass.rawValue
        source = plan.upstreamURL != nil ? "origin" : plan.fromOverlay ? "overlay" : "package"
        g_object_ref(webRequest)
    }

    deinit { releaseRequest() }

    private func releaseRequest() {
        if let webRequest { g_object_unref(webRequest) }
        webRequest = nil
    }

    func didReceive(_ response: ResourceResponse) {
        guard checkLive(), let webRequest else { return }
        status = response.status
        // Only the package's own folder redirect (a path on this host); an origin's 3xx goes
        // to WebKit as it came, and a `javascript:` location is never run.
        if response.status == 301, source == "package", let location = response.header("Location"),
           location.hasPrefix("/"), !location.hasPrefix("//") {
            return answerRedirect(to: location, webRequest)
        }
        let writer: PipeBodyWriter
        do {
            writer = try PipeBodyWriter(held: handler.heldBodyBytes)
        } catch {
            return failAndStop("\(error)")
        }
        // The writer outlives the task while its last bytes drain into the pipe.
        writer.onConsumed = { [weak self] count in
            if let self { handler.resolver.consumed(count, by: self) }
        }
        writer.onReaderGone = { [weak self] in
            if let self { handler.stop(self, note: "page dropped the stream") }
        }
        body = writer
        guard let stream = writer.takeStream() else { return }
        // HEAD, 204 and 304 answers have no body, whatever Content-Length says.
        let hasBody = request.method != "HEAD" && response.status != 204 && response.status != 304
        let answer = webkit_uri_scheme_response_new(stream, hasBody ? gint64(response.contentLength ?? -1) : 0)!
        webkit_uri_scheme_response_set_status(answer, guint(response.status), nil)
        let headers = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE)!
        for (name, value) in response.headers {
            soup_message_headers_append(headers, name, value)
        }
        if let type = response.header("Content-Type") { webkit_uri_scheme_response_set_content_type(answer, type) }
        webkit_uri_scheme_response_set_http_headers(answer, headers)  // takes the headers
        webkit_uri_scheme_request_finish_with_response(webRequest, answer)
        g_object_unref(answer)
        g_object_unref(stream)  // WebKit holds it now
        releaseRequest()
    }

    /// WebKitGTK does not follow a 3xx that a custom scheme answers (2.50: "Frame load
    /// interrupted", and nothing loads), so the redirect becomes a page that replaces
    /// itself with `location`: the same for a navigation, and no history entry.
    private func answerRedirect(to location: String, _ webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let html = location.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
        let script = location.unicodeScalars.map { scalar in
            scalar.isASCII && scalar.properties.isAlphabetic || "/?=&.-_:%#".unicodeScalars.contains(scalar)
                || ("0"..."9").contains(scalar) ? String(scalar) : "\\u{" + String(scalar.value, radix: 16) + "}"
        }.joined()
        let page = Array(("<!doctype html><meta http-equiv=\"refresh\" content=\"0; url=\(html)\">"
            + "<script>location.replace(\"\(script)\")</script>").utf8)
        let copy = g_malloc(gsize(page.count))!
        page.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: page.count) }
        let stream = g_memory_input_stream_new_from_data(copy, gssize(page.count), g_free)!
        let answer = webkit_uri_scheme_response_new(stream, gint64(page.count))!
        webkit_uri_scheme_response_set_status(answer, 200, nil)
        webkit_uri_scheme_response_set_content_type(answer, "text/html; charset=utf-8")
        webkit_uri_scheme_request_finish_with_response(webRequest, answer)
        g_object_unref(answer)
        g_object_unref(stream)
        releaseRequest()
    }

    func didReceive(_ data: UnsafeRawBufferPointer) {
        guard checkLive() else { return }
        bytes += data.count
        body?.write(data)
    }

    func didFinish() {
        guard checkLive() else { return }
        body?.finish()
        body = nil
        handler.ended(self, status: status, bytes: bytes, outcome: .finished)
    }

    func didFail(_ error: PkgError) {
        guard checkLive() else { return }
        if let body {
            body.abort()  // the head is out: all that is left is to end the body early
            self.body = nil
        } else {
            finishError(error.message)
        }
        handler.ended(self, status: status, bytes: bytes, outcome: .failed(error.message))
    }

    /// Answers WebKit with an error before any response.
    private func finishError(_ message: String) {
        guard let webRequest else { return }
        Self.finishError(webRequest, message)
        releaseRequest()
    }

    /// Answers `webRequest` with an error (a refused request, an offline miss, a failure before the head).
    static func finishError(_ webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>, _ message: String) {
        let error = g_error_new_literal(g_quark_from_static_string("hybrid-app-resolver"), 1, message)
        webkit_uri_scheme_request_finish_error(webRequest, error)
        g_error_free(error)
    }

    /// Main thread: the app stopped the task; its pipe closes and nothing is said to WebKit again.
    func markStopped() {
        stopped = true
        body?.abort()
        body = nil
    }

    private func failAndStop(_ message: String) {
        finishError(message)
        handler.stop(self, note: message)
    }

    /// Counts a callback after `stop` (the resolver promises there are none).
    private func checkLive() -> Bool {
        if stopped { handler.lateCallbacks += 1 }
        return !stopped
    }
}
