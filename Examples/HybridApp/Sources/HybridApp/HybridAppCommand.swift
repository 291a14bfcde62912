import ArgumentParser
import CWebKitGTK
import Foundation
import Glibc
import PkgCore

/// `hybrid-app`: a WebKitGTK window on an `app://` URL served from pkgctl's store.
@main
struct HybridAppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-app",
        abstract: "Open a page whose custom scheme is served by pkgctl's resolver in a WebKitGTK window.")

    @Option(help: "The pkgctl store to serve (as `pkgctl update --root`).")
    var root: String
    @Option(help: "The custom scheme to register.")
    var scheme = "app"
    @Option(help: "Origin for files no package has (default: https://HOST of the request).")
    var upstream: String?
    @Option(help: "PEM file of the CAs trusted for the origin.")
    var caFile: String?
    @Flag(help: "Never ask the origin: a file no package has fails.")
    var offline = false
    @Option(help: "The folder of libgstpkgctl.so (Examples/gst-pkgctl): <video> and <audio> play from app:// URLs.")
    var mediaPlugin: String?
    @Flag(help: "Print the page's DOM after the load event, then exit (non-zero on a load failure or timeout).")
    var dumpDom = false
    @Option(help: "Write a PNG of the rendered page, then exit.")
    var screenshot: String?
    @Option(help: "A JavaScript expression to wait for (polled after the load event) before --dump-dom/--screenshot.")
    var waitFor: String?
    @Option(help: "Loads to report before exiting; SIGHUP reloads the page.")
    var loads = 1
    @Option(help: "Seconds to allow for --dump-dom/--screenshot.")
    var timeout: UInt32 = 30
    @Argument(help: "The URL to open, e.g. app://www.example.com/app/.")
    var url: String

    func validate() throws {
        if let mediaPlugin, access(mediaPlugin + "/libgstpkgctl.so", R_OK) != 0 {
            throw ValidationError("--media-plugin: no libgstpkgctl.so in \(mediaPlugin)")
        }
    }

    func run() throws {
        signal(SIGPIPE, SIG_IGN)  // a page that drops a body stream breaks its pipe: EPIPE, not death
        // A launcher may hand down a blocked mask; SIGHUP (reload), SIGINT and SIGTERM must reach the loop.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in [SIGHUP, SIGINT, SIGTERM] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        if let mediaPlugin { enableMedia(plugin: mediaPlugin) }
        gtk_init(nil, nil)
        let resolver = try Resolver(store: PackageStore(root: root),
                                    configuration: ResolverConfiguration(upstream: upstream, caFile: caFile))
        let handler = SchemeHandler(resolver: resolver, offline: offline)
        let window = AppWindow(handler: handler, scheme: scheme,
                               report: AppWindow.Report(dumpDOM: dumpDom, screenshot: screenshot, waitFor: waitFor,
                                                        loads: max(1, loads)))
        window.open(url, timeoutSeconds: max(1, timeout))
        gtk_main()
    }

    /// Media on the app's scheme (Examples/gst-pkgctl). WebKit's web process, where GStreamer plays
    /// media, inherits this environment: its playbin finds `pkgctlsrc` in `plugin`, may use URLs of
    /// `scheme`, which the element claims, and the element reads the store with this app's resolver
    /// settings. Before any web view exists.
    private func enableMedia(plugin: String) {
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        func add(_ value: String, to name: String, separator: String, first: Bool) {
            let old = getenv(name).map { String(cString: $0) } ?? ""
            setenv(name, old.isEmpty ? value : first ? value + separator + old : old + separator + value, 1)
        }
        add(absolute(plugin), to: "GST_PLUGIN_PATH", separator: ":", first: true)
        add(scheme, to: "WEBKIT_GST_ALLOWED_URI_PROTOCOLS", separator: ",", first: false)
        setenv("PKGCTL_MEDIA_SCHEMES", scheme, 1)
        setenv("PKGCTL_MEDIA_ROOT", absolute(root), 1)
        for (name, value) in [("PKGCTL_MEDIA_UPSTREAM", upstream), ("PKGCTL_MEDIA_CA_FILE", caFile)] {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        setenv("PKGCTL_MEDIA_OFFLINE", offline ? "1" : "0", 1)
    }
}
