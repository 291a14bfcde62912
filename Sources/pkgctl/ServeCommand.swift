import PkgCommandLine
import ArgumentParser
import CoreMetrics
import Dispatch
import FoundationEssentials
import Glibc
import Logging
import PkgCore
import PkgServer
import Prometheus

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the installed packages over local HTTP, for previewing them in a browser.",
        discussion: """
            GET /app/index.html resolves as if the custom-scheme request were for --default-host \
            (GET / redirects to its route's path when no package serves the host's root); \
            an absolute-form request (a browser started with --proxy-server) resolves by its own host. \
            Files missing from a package come from the origin and html/js/css are written through \
            (--offline answers them 404). An update installed meanwhile is served by the next request. \
            Ctrl-C finishes the responses in flight, then exits.

            Prints one access-log line per request (method, target, status, bytes, class, source, time); \
            every answer says where it came from in X-Pkg-Source. With --metrics-port, Prometheus scrapes \
            http://ADDRESS:PORT/metrics. Every option may come from the config file (serve.KEY) or the \
            environment (PKGCTL_SERVE_KEY).

            With --source DIR, a build folder is served instead, under the same rules as a package \
            (--route, --spa-fallback, --immutable and --header as pack takes them), and a file changed \
            in it is served changed; what it lacks is a 404 unless --upstream names an origin. Those four \
            options without --source are refused (exit 64).

            An empty store, or a --default-host no route matches, is said on stderr at start. A 404 for a \
            path outside every route of a host whose routes have a prefix names the base path the page's \
            build likely needs (e.g. /app/).

            Examples:
              # Preview the installed packages on http://127.0.0.1:8080/:
              pkgctl serve
              # All addresses, port 8443, never asking the origin, metrics on 9464:
              pkgctl serve --bind 0.0.0.0 --port 8443 --offline --metrics-port 9464
              # Preview a bundler's output folder before packing it:
              pkgctl serve --source dist --route www.example.com/app \\
                --spa-fallback index.html
            """)

    @OptionGroup var store: StoreOptions

    @Option(help: "Port to listen on; 0: any free port (default: \(ServeSettings.Defaults.port)).")
    var port: Int?

    @Option(help: ArgumentHelp("Address to listen on (default: \(ServeSettings.Defaults.bind)).", valueName: "address"))
    var bind: String?

    @Option(help: ArgumentHelp(
        "Host that /PATH requests are resolved for (default: the first route of the only installed package).",
        valueName: "host"))
    var defaultHost: String?

    @Option(help: ArgumentHelp("Base URL of the origin for files a package lacks (default: https://HOST).",
                               valueName: "url"))
    var upstream: String?

    @Option(name: .customLong("ca-file"), help: ArgumentHelp("PEM file of CAs to trust for https.", valueName: "pem"))
    var caFile: String?

    @Flag(help: "Never contact the origin: what no package or the overlay holds is a 404.")
    var offline = false

    @Flag(name: .shortAndLong, help: "No access log.")
    var quiet = false

    @Option(help: ArgumentHelp(
        "Also serve Prometheus metrics at /metrics on this port of the --bind address (0: any free port).",
        valueName: "port"))
    var metricsPort: Int?

    @Option(help: ArgumentHelp("Serve this build folder instead of the store's packages.", valueName: "dir"))
    var source: String?

    @Option(help: ArgumentHelp(
        "With --source: where the folder is served, HOST or HOST/PREFIX (default: \(ServeSettings.Defaults.sourceRoute)).",
        valueName: "route"))
    var route: String?

    @Option(name: .customLong("spa-fallback"), help: ArgumentHelp(
        "With --source: the document for html navigations that match no file.", valueName: "file"))
    var spaFallback: String?

    @Option(help: ArgumentHelp("With --source: files (a glob) served as immutable (repeatable).", valueName: "glob"))
    var immutable: [String] = []

    @Option(help: ArgumentHelp("With --source: a response header for some files, 'GLOB: Name: value' (repeatable).",
                               valueName: "header"))
    var header: [String] = []

    /// The settings this command line gives, above the environment and the config file.
    private var flags: FlagSettings {
        var flags = FlagSettings()
        flags.set("serve.port", port)
        flags.set("serve.bind", bind)
        flags.set("serve.default-host", defaultHost)
        flags.set("serve.upstream", upstream)
        flags.set("serve.ca-file", caFile)
        flags.set("serve.offline", offline)
        flags.set("serve.quiet", quiet)
        flags.set("serve.metrics-port", metricsPort)
        flags.set("serve.source", source)
        flags.set("serve.route", route)
        flags.set("serve.spa-fallback", spaFallback)
        flags.set("serve.immutable", immutable)
        flags.set("serve.header", header)
        return flags
    }

    func run() async throws {
        let layers = try await store.layers(flags: flags)
        let settings = try reportingErrors { try ServeSettings(layers) }
        if let folder = settings.source {
            let cache = try reportingErrors { try Self.makeCacheDirectory() }
            defer { try? FileManager.default.removeItem(atPath: cache) }
            try serve(settings, served: folder.directory) { configuration in
                let resolver = try Resolver(folder: folder, cacheDirectory: cache, configuration: configuration)
                // A build folder's route never changes: no request for this host could ever be served.
                if let host = settings.defaultHost, !resolver.routesHost(host) {
                    throw layers.invalid("serve.default-host", "'\(host.escapedForMessage)' matches no route "
                                         + "(routes: \(folder.route)); a build folder is served only under its --route")
                }
                return (resolver, PackageRoute(folder.route)?.host, nil)
            }
        } else {
            let packageStore = try reportingErrors { try store.packageStore(layers) }
            try serve(settings, served: packageStore.layout.root) { configuration in
                let resolver = try Resolver(store: packageStore, configuration: configuration)
                let packages = try packageStore.activePackages()
                return (resolver, Self.defaultHost(of: packages),
                        Self.unservedNotice(root: packageStore.layout.root, hasPackages: !packages.isEmpty,
                                            defaultHost: settings.defaultHost, resolver: resolver,
                                            offline: settings.offline))
            }
        }
    }

    /// The line `serve` starts with on stderr when a store's packages serve nothing it will be
    /// asked, or nil: an empty store, or a `--default-host` no route matches. A warning, not a
    /// refusal: the server follows updates, and an update may install the package or add the route.
    static func unservedNotice(root: String, hasPackages: Bool, defaultHost: String?, resolver: Resolver,
                               offline: Bool) -> String? {
        let answered = offline ? "will be answered 404" : "goes to the origin"
        guard hasPackages else {
            let requests = offline ? "every request \(answered)"
                : "every request for this server's own address is answered 503, others go to their origin"
            return "the store \(root) has no installed package; \(requests) (run pkgctl update first)"
        }
        guard let host = defaultHost, !resolver.routesHost(host) else { return nil }
        let routes = resolver.routeNames.isEmpty ? "none" : resolver.routeNames.joined(separator: ", ")
        return "--default-host '\(host.escapedForMessage)' matches no route (routes: \(routes)); every /PATH request "
            + "\(answered) until an update installs a package routed for it"
    }

    /// Serves until SIGINT or SIGTERM; blocks the calling thread. `makeResolver` gives the
    /// resolver, the host `/PATH` requests resolve for when no setting names one, and a line to
    /// warn with once the server listens.
    private func serve(_ settings: ServeSettings, served: String,
                       makeResolver: (ResolverConfiguration) throws -> (Resolver, String?, String?)) throws {
        let bind = settings.bind, port = settings.port
        // A build folder's misses go to an origin only when one is named.
        let offline = settings.offline || (settings.source != nil && settings.upstream == nil)
        // Before the resolver and the server make their metric handles.
        let registry = settings.metricsPort.map { _ in Self.bootstrapMetrics() }
        let (server, address, host, metrics, notice) = try reportingErrors {
            let (resolver, routedHost, notice) = try makeResolver(ResolverConfiguration(upstream: settings.upstream,
                                                                                        caFile: settings.caFile))
            let host = settings.defaultHost ?? routedHost
            let accessLog = settings.quiet ? nil : Logger(label: "pkgctl.serve")
            let server = PreviewServer(resolver: resolver,
                                       configuration: PreviewServerConfiguration(bindHost: bind, port: port,
                                                                                 defaultHost: host,
                                                                                 offline: offline,
                                                                                 recordsMetrics: registry != nil),
                                       accessLog: accessLog)
            let metrics = try registry.map { registry in
                let metrics = MetricsServer(registry: registry, host: bind, port: settings.metricsPort ?? 0)
                return (server: metrics, address: try listening(on: bind, metrics.port, " for metrics") {
                    try metrics.start()
                })
            }
            return (server, try listening(on: bind, port) { try server.start() }, host, metrics, notice)
        }
        let shownHost = address.ipAddress.map { $0.contains(":") ? "[\($0)]" : $0 } ?? bind
        let entry = host.flatMap(server.resolver.entryPath(forHost:)) ?? "/"
        let banner = "serving \(served) on http://\(shownHost):\(address.port ?? port)\(entry)"
            + (host.map { " (as \($0))" } ?? "")
            + (metrics.map { "; metrics on http://\(shownHost):\($0.address.port ?? 0)/metrics" } ?? "") + "\n"
        if let notice { Output.printError(notice) }  // before the banner: a reader of it may stop us at once
        Output.write(Array(banner.utf8), to: STDOUT_FILENO)

        // A parent may have started us with these blocked (e.g. a test runner's thread).
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
        let signals = [SIGINT, SIGTERM].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                do { try server.shutdown() } catch { Output.printError("shutting down the server: \(error)") }
            }
            source.resume()
            return source
        }
        server.waitUntilShutDown()
        do { try metrics?.server.shutdown() } catch { Output.printError("shutting down the metrics server: \(error)") }
        withExtendedLifetime(signals) {}
    }

    /// Starts a server on `bind`:`port`, naming the address (and `purpose`) when it cannot listen.
    private func listening<Address>(on bind: String, _ port: Int, _ purpose: String = "",
                                    _ start: () throws -> Address) throws -> Address {
        do {
            return try start()
        } catch let error as PkgError {
            throw error
        } catch {
            throw PkgError(.invalidArgument, "cannot listen on \(bind):\(port)\(purpose): \(ListenFailure.reason(error))")
        }
    }

    /// Sends every swift-metrics handle made from here on to a new Prometheus registry, with
    /// latency buckets from 100 µs (a local file) to 10 s (a slow origin).
    static func bootstrapMetrics() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// A new private directory for a build folder's write-through cache: `$TMPDIR/pkgctl-serve.XXXXXX`.
    static func makeCacheDirectory() throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/pkgctl-serve.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PkgError(.fileSystem, "cannot make a cache directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// The host of the first route when exactly one package is installed.
    static func defaultHost(of packages: [InstalledPackage]) -> String? {
        guard packages.count == 1, let route = packages[0].routes.first else { return nil }
        return PackageRoute(route)?.host
    }
}
