import CWebKitGTK
import Glibc
import PkgCore

/// The app's window: a WebKit web view whose scheme goes to the ``SchemeHandler``,
/// and what the command line asks of a page load (print the DOM, take a
/// screenshot, give up after a timeout). Main thread only.
final class AppWindow: @unchecked Sendable {
    /// What to do once a page has loaded.
    struct Report {
        var dumpDOM = false
        var screenshot: String?
        /// A JavaScript expression that must be true before reporting (polled after the load event).
        var waitFor: String?
        /// Loads to report before exiting (SIGHUP reloads the page).
        var loads = 1
        var isAutomated: Bool { dumpDOM || screenshot != nil }
    }

    private let handler: SchemeHandler
    private let report: Report
    private let view: UnsafeMutablePointer<WebKitWebView>
    private var loadsReported = 0
    private var failure: String?
    /// A load was cancelled because another navigation replaced it: WebKit still ends it
    /// with a `load-changed` FINISHED, which is not the page to report.
    private var superseded = false
    private var baseline: ProcessStats?

    init(handler: SchemeHandler, scheme: String, report: Report) {
        self.handler = handler
        self.report = report
        let context = webkit_web_context_new_ephemeral()!
        handler.register(scheme: scheme, on: context)
        view = cast(webkit_web_view_new_with_context(context))
        g_object_unref(context)  // the view holds it
        let window = gtk_window_new(GTK_WINDOW_TOPLEVEL)!
        gtk_window_set_default_size(cast(window), 1024, 768)
        gtk_container_add(cast(window), cast(view))
        connect(window, "destroy", unsafeBitCast(Self.onDestroy, to: GCallback.self))
        connect(view, "load-changed", unsafeBitCast(Self.onLoadChanged, to: GCallback.self))
        connect(view, "load-failed", unsafeBitCast(Self.onLoadFailed, to: GCallback.self))
        connect(view, "web-process-terminated", unsafeBitCast(Self.onWebProcessTerminated, to: GCallback.self))
        gtk_widget_show_all(window)
    }

    /// Loads `url`; sets up the timeout and signal sources (which borrow this window: it lives until exit).
    func open(_ url: String, timeoutSeconds: UInt32) {
        if report.isAutomated {
            g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, timeoutSeconds, { data in
                let window = Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue()
                window.exit(2, "timed out")
                return gboolean(0)
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
        }
        g_unix_signal_add_full(G_PRIORITY_DEFAULT, SIGHUP, { data in
            let window = Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue()
            Log.line("SIGHUP: reload")
            webkit_web_view_reload(window.view)
            return gboolean(1)
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
        for signal in [SIGINT, SIGTERM] {
            g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { data in
                Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue().exit(0, nil)
                return gboolean(0)
            }, Unmanaged.passUnretained(self).toOpaque(), nil)
        }
        webkit_web_view_load_uri(view, url)
    }

    // MARK: Loading

    private func loadFinished() {
        if let failure { return exit(1, failure) }
        if baseline == nil { baseline = ProcessStats.now() }
        guard report.isAutomated else { return }
        if let condition = report.waitFor {
            waitUntil(condition)
        } else {
            reportPage()
        }
    }

    /// Polls `condition` in the page every 50 ms (the timeout bounds it).
    private func waitUntil(_ condition: String) {
        evaluate("!!(\(condition))") { [unsafe = UnsafeTransfer(self)] result in
            let window = unsafe.value
            if result == "true" {
                window.reportPage()
            } else {
                let again = CallbackBox<Void> { window.waitUntil(condition) }
                g_timeout_add_full(G_PRIORITY_DEFAULT, 50, { data in
                    Unmanaged<CallbackBox<Void>>.fromOpaque(data!).takeRetainedValue().call(())
                    return gboolean(0)
                }, Unmanaged.passRetained(again).toOpaque(), nil)
            }
        }
    }

    private func reportPage() {
        let next = { [unsafe = UnsafeTransfer(self)] in
            let window = unsafe.value
            window.loadsReported += 1
            if window.loadsReported >= window.report.loads { window.exit(0, nil) }
        }
        let screenshot = { [unsafe = UnsafeTransfer(self)] in
            guard let path = unsafe.value.report.screenshot else { return next() }
            unsafe.value.snapshot(to: path, then: next)
        }
        guard report.dumpDOM else { return screenshot() }
        evaluate("document.documentElement.outerHTML") { dom in
            Log.output((dom ?? "") + "\n")
            screenshot()
        }
    }

    // MARK: WebKit calls

    /// Runs `script` in the page; `done` gets its result as a string (nil on an exception).
    private func evaluate(_ script: String, done: @escaping (String?) -> Void) {
        let box = Unmanaged.passRetained(CallbackBox(done)).toOpaque()
        webkit_web_view_evaluate_javascript(view, script, -1, nil, nil, nil, { source, result, data in
            let done = Unmanaged<CallbackBox<String?>>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            let value = webkit_web_view_evaluate_javascript_finish(cast(source!), result, &error)
            if let error { g_error_free(error) }
            guard let value else { return done.call(nil) }
            let text = jsc_value_to_string(value)
            g_object_unref(value)
            guard let text else { return done.call(nil) }
            done.call(String(cString: text))
            g_free(text)
        }, box)
    }

    private func snapshot(to path: String, then next: @escaping () -> Void) {
        let box = Unmanaged.passRetained(CallbackBox<String?> { failure in
            if let failure { Log.line("screenshot: \(failure)") }
            next()
        }).toOpaque()
        webkit_web_view_get_snapshot(view, WEBKIT_SNAPSHOT_REGION_FULL_DOCUMENT, WEBKIT_SNAPSHOT_OPTIONS_NONE, nil,
                                     { source, result, data in
            let done = Unmanaged<CallbackBox<String?>>.fromOpaque(data!).takeRetainedValue()
            var error: UnsafeMutablePointer<GError>?
            guard let surface = webkit_web_view_get_snapshot_finish(cast(source!), result, &error) else {
                let message = error.map { String(cString: $0.pointee.message) } ?? "no image"
                if let error { g_error_free(error) }
                return done.call(message)
            }
            defer { cairo_surface_destroy(surface) }
            let path = String(cString: g_object_get_data(cast(source!), "hybrid-app-screenshot").assumingMemoryBound(to: CChar.self))
            let status = cairo_surface_write_to_png(surface, path)
            done.call(status == CAIRO_STATUS_SUCCESS ? nil : "\(path): " + String(cString: cairo_status_to_string(status)))
        }, box)
        g_object_set_data_full(cast(view), "hybrid-app-screenshot", g_strdup(path), g_free)
    }

    // MARK: Exit

    /// Waits (30 s at most) for tasks and origin transfers to settle, shuts the resolver down,
    /// prints the exit line, exits.
    private func exit(_ code: Int32, _ message: String?) {
        if let message { Log.line(message) }
        for _ in 0..<3000 where handler.liveTasks > 0 || handler.resolver.upstreamTransfersInFlight > 0 {
            while g_main_context_iteration(nil, gboolean(0)) != 0 {}
            usleep(10_000)
        }
        handler.logLiveTasks()
        // As the C and Qt apps destroy theirs: what the resolver counted (a launch under way, its
        // signals) is written to the store before the process ends.
        handler.resolver.shutdown()
        let counts = handler.counts
        let end = ProcessStats.now()
        let start = baseline ?? end
        Log.line("exit \(code): tasks started=\(counts.started) finished=\(counts.finished) failed=\(counts.failed) "
                 + "stopped=\(counts.stopped) late=\(handler.lateCallbacks) live=\(handler.liveTasks) "
                 + "fds=\(start.descriptors)->\(end.descriptors) pipes=\(start.pipes)->\(end.pipes) sockets=\(start.sockets)->\(end.sockets) rss-kb=\(start.residentKiB)->\(end.residentKiB) "
                 + "peak-rss-kb=\(end.peakResidentKiB) peak-held-kb=\(handler.heldBodyBytes.peak / 1024) window-kb=\(SchemeHandler.window / 1024)")
        Glibc.exit(code)
    }

    // MARK: Signals

    private func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ callback: GCallback) {
        g_signal_connect_data(instance, signal, callback, Unmanaged.passUnretained(self).toOpaque(), nil, GConnectFlags(0))
    }
    private func connect<T>(_ instance: UnsafeMutablePointer<T>, _ signal: String, _ callback: GCallback) {
        connect(UnsafeMutableRawPointer(instance), signal, callback)
    }

    private static let onDestroy: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
        Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue().exit(0, nil)
    }

    /// Only the last navigation's outcome counts: a new one starting clears what an
    /// earlier one left, and its finish is what is reported.
    private static let onLoadChanged: @convention(c) (UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafeMutableRawPointer?) -> Void = { _, event, data in
        let window = Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue()
        if event == WEBKIT_LOAD_STARTED { window.failure = nil }
        guard event == WEBKIT_LOAD_FINISHED else { return }
        if window.superseded {
            window.superseded = false
            return
        }
        window.loadFinished()
    }

    /// A load another navigation replaced (the page set `location`, the user clicked on)
    /// fails as cancelled: that is no failure of the app, and is only logged.
    private static let onLoadFailed: @convention(c) (UnsafeMutableRawPointer?, WebKitLoadEvent, UnsafePointer<CChar>?,
                                                      UnsafeMutablePointer<GError>?, UnsafeMutableRawPointer?) -> gboolean = { _, _, uri, error, data in
        let window = Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue()
        let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
        let shown = (uri.map { String(cString: $0) } ?? "").escapedForMessage
        if let error, g_error_matches(error, webkit_network_error_quark(), gint(WEBKIT_NETWORK_ERROR_CANCELLED.rawValue)) != 0 {
            Log.line("load superseded: \(shown): \(message)")
            window.superseded = true
            return gboolean(0)
        }
        window.failure = "load failed: \(shown): \(message)"
        return gboolean(0)
    }

    private static let onWebProcessTerminated: @convention(c) (UnsafeMutableRawPointer?, WebKitWebProcessTerminationReason,
                                                               UnsafeMutableRawPointer?) -> Void = { _, reason, data in
        Unmanaged<AppWindow>.fromOpaque(data!).takeUnretainedValue().exit(1, "web process terminated (reason \(reason.rawValue))")
    }
}

/// A Swift closure carried through a C callback's `user_data`.
final class CallbackBox<Value> {
    let call: (Value) -> Void
    init(_ call: @escaping (Value) -> Void) { self.call = call }
}

/// Carries a main-thread-only reference into closures that GLib runs on the main thread.
struct UnsafeTransfer<Value: AnyObject>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// A GObject pointer as another type of the same object (GTK's C casts, which Swift cannot import).
func cast<From, To>(_ pointer: UnsafeMutablePointer<From>) -> UnsafeMutablePointer<To> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: To.self)
}
func cast<To>(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<To> {
    pointer.assumingMemoryBound(to: To.self)
}
