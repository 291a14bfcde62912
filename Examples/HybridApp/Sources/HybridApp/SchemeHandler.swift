import CWebKitGTK
import PkgCore

/// Answers one custom scheme of a WebKit web context from a ``Resolver``: each
/// request WebKit hands over becomes a ``WebKitSchemeTask`` started with
/// delivery on the GLib main loop, a bounded window and explicit consumption.
/// Main thread only, like WebKit itself.
final class SchemeHandler: @unchecked Sendable {
    enum Outcome { case finished, failed(String) }

    /// What the app has seen, for its exit line and its tests.
    struct Counts {
        var started = 0, finished = 0, failed = 0, stopped = 0
    }

    /// Body bytes a task may have queued for WebKit before the resolver holds back its source.
    static let window = 512 * 1024
    /// Request bodies larger than this are refused (they are read into memory).
    static let maximumRequestBody = 16 << 20

    let resolver: Resolver
    let offline: Bool
    private(set) var counts = Counts()
    /// Callbacks that reached a task after the app stopped it: must stay 0.
    var lateCallbacks = 0
    /// Body bytes waiting in the app for room in a pipe.
    let heldBodyBytes = HeldBodyBytes()
    private var live: [ObjectIdentifier: WebKitSchemeTask] = [:]
    private let executor = GLibMainLoopExecutor()

    init(resolver: Resolver, offline: Bool) {
        self.resolver = resolver
        self.offline = offline
    }

    /// Tasks started and not yet ended.
    var liveTasks: Int { live.count }

    /// Logs the tasks still running (at most `limit`), e.g. at exit.
    func logLiveTasks(limit: Int = 5) {
        for task in live.values.prefix(limit) {
            log(task, status: task.status, bytes: task.bytes, note: "still running")
        }
    }

    /// Registers `scheme` on `context` as secure (pages on it are a secure context) and CORS-enabled.
    func register(scheme: String, on context: UnsafeMutablePointer<WebKitWebContext>) {
        let data = Unmanaged.passRetained(self).toOpaque()
        webkit_web_context_register_uri_scheme(context, scheme, { webRequest, data in
            let handler = Unmanaged<SchemeHandler>.fromOpaque(data!).takeUnretainedValue()
            handler.start(webRequest!)
        }, data, { data in Unmanaged<SchemeHandler>.fromOpaque(data!).release() })
        let security = webkit_web_context_get_security_manager(context)
        webkit_security_manager_register_uri_scheme_as_secure(security, scheme)
        webkit_security_manager_register_uri_scheme_as_cors_enabled(security, scheme)
    }

    private func start(_ webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>) {
        let url = String(cString: webkit_uri_scheme_request_get_uri(webRequest))
        let method = webkit_uri_scheme_request_get_http_method(webRequest).map { String(cString: $0) } ?? "GET"
        var request = ResourceRequest(url: url, method: method, headers: Self.headers(of: webRequest))
        let plan: ResolutionPlan
        do {
            request.body = try Self.body(of: webRequest)
            plan = try resolver.plan(for: request)
        } catch {
            return refuse(webRequest, "\(method) \(url.escapedForMessage): \(error.message)")
        }
        if offline, plan.upstreamURL != nil {
            resolver.answeredOffline(request)  // a trial by launches counts what the page missed
            return refuse(webRequest, "\(url.escapedForMessage) is in no installed package (offline)")
        }
        let task = WebKitSchemeTask(request: request, webRequest: webRequest, plan: plan, handler: self)
        live[ObjectIdentifier(task)] = task
        counts.started += 1
        resolver.start(task, delivery: .on(executor, window: Self.window, consumption: .explicit))
    }

    private func refuse(_ webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>, _ message: String) {
        Log.line(message)
        WebKitSchemeTask.finishError(webRequest, message)
    }

    /// Main thread: stops `task` (the page left it); nothing reaches it afterwards.
    func stop(_ task: WebKitSchemeTask, note: String) {
        guard live.removeValue(forKey: ObjectIdentifier(task)) != nil else { return }
        resolver.stop(task)
        task.markStopped()
        counts.stopped += 1
        log(task, status: nil, bytes: nil, note: "stopped: \(note)")
    }

    /// Main thread: the resolver's last word on `task`.
    func ended(_ task: WebKitSchemeTask, status: Int, bytes: Int, outcome: Outcome) {
        guard live.removeValue(forKey: ObjectIdentifier(task)) != nil else { return }
        switch outcome {
        case .finished:
            counts.finished += 1
            log(task, status: status, bytes: bytes, note: nil)
        case .failed(let message):
            counts.failed += 1
            log(task, status: status, bytes: bytes, note: "failed: \(message)")
        }
    }

    /// `GET app://www.example.com/app/index.html 200 html package 614B`.
    private func log(_ task: WebKitSchemeTask, status: Int?, bytes: Int?, note: String?) {
        var line = "\(task.request.method) \(task.request.url.escapedForMessage) \(status.map(String.init) ?? "-")"
        line += " \(task.resourceClass) \(task.source) \(bytes.map { "\($0)B" } ?? "-")"
        if let note { line += " (\(note))" }
        Log.line(line)
    }

    /// The request's header fields, without `Accept-Encoding`: WebKit passes a custom-scheme
    /// body to the page as it is, so a precompressed (`.br`/`.gz`) answer must never be chosen.
    private static func headers(of webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>) -> [(name: String, value: String)] {
        guard let headers = webkit_uri_scheme_request_get_http_headers(webRequest) else { return [] }
        var fields: [(name: String, value: String)] = []
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, headers)
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            guard let name, let value else { continue }
            let field = String(cString: name)
            if field.lowercased() == "accept-encoding" { continue }
            fields.append((field, String(cString: value)))
        }
        return fields
    }

    /// The request body (string bodies; WebKit crashes on Blob and FormData ones), read whole.
    private static func body(of webRequest: UnsafeMutablePointer<WebKitURISchemeRequest>) throws(PkgError) -> [UInt8] {
        guard let stream = webkit_uri_scheme_request_get_http_body(webRequest) else { return [] }
        defer { g_object_unref(stream) }
        var body: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var error: UnsafeMutablePointer<GError>?
            let count = chunk.withUnsafeMutableBytes {
                g_input_stream_read(stream, $0.baseAddress, gsize($0.count), nil, &error)
            }
            if let error {
                let message = String(cString: error.pointee.message)
                g_error_free(error)
                throw PkgError(.invalidArgument, "request body: \(message)")
            }
            if count <= 0 { return body }
            body.append(contentsOf: chunk[..<count])
            if body.count > maximumRequestBody {
                throw PkgError(.invalidArgument, "request body over \(maximumRequestBody) bytes")
            }
        }
    }
}
