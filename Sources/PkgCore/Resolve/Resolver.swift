import Dispatch
import FoundationEssentials
import Logging
import Synchronization
import Glibc

/// Answers custom-scheme requests from the installed packages, the
/// overlay, or the origin — the embeddable heart of pkgctl, shaped like
/// `WKURLSchemeHandler`: ``start(_:delivery:)`` and ``stop(_:)`` with a ``ResourceTask``.
///
/// For each request: classify it (``ResourceClass``), route host + path prefix
/// to a package's active version, and serve the file if it is there (MIME type,
/// `ETag`/304, single `Range` 206/416, streamed in chunks; its `.br`/`.gz`
/// sibling when `Accept-Encoding` allows, see ``ContentCoding``), or, for an html
/// navigation, the package's ``ManifestEntry/spaFallback``; for a GET, look in the
/// overlay next; else fetch from the origin (`https://HOST/PATH?QUERY` by default),
/// stream the answer as it arrives, and write html/script/style answers through
/// to the overlay. Non-GET and `other`-class requests always go to the origin.
/// What goes wrong under a package's routes (origin fallbacks, the origin's 404s) is
/// counted per version in the store (``ServingSignals``) for `pkgctl update` to report.
///
/// ```swift
/// let resolver = try Resolver(store: PackageStore(root: "/var/lib/pkgctl"))
/// resolver.start(task)   // task.request.url == "app://www.example.com/app/index.html"
/// // ... the web view went away:
/// resolver.stop(task)    // after this returns, task hears nothing more
/// ```
///
/// **Updates under a live resolver.** Routes live in a snapshot built from the
/// store. Every request that matches a package does one `readlink(2)` of
/// `packages/NAME/current` and rebuilds the snapshot when it names another
/// version; `ROOT/packages` is `stat`-ed at most every
/// ``ResolverConfiguration/packageRescanMilliseconds`` to notice packages added
/// or removed. ``reload()`` forces a rebuild.
public final class Resolver: Sendable {
    /// The store served (for a build folder, the one its write-through cache lives in).
    public let store: PackageStore
    /// Origins, TLS trust and write-through settings.
    public let configuration: ResolverConfiguration
    /// The build folder served, as ``init(folder:cacheDirectory:configuration:)`` was given it; nil
    /// for a store's packages.
    package var servedFolder: String? {
        servesFolder ? table.withLock { $0 }.mounts.first?.directory : nil
    }
    private let tasks: TaskTable
    let table: PosixMutex<RouteTable>
    /// Whether the routes are a build folder's, fixed for the resolver's life (no store to watch).
    let servesFolder: Bool
    let lastRescan = Atomic<Int64>(0)
    /// After a failed reload of the routes, none is tried before this time (coarse monotonic ns).
    let routeReloadAllowedAt = Atomic<Int64>(0)
    /// Failed reloads of the routes, for tests; metrics and the log have them too.
    let routeReloadFailureCount = Atomic<Int>(0)
    let metrics: ResolverMetrics
    let logger = Logger(label: "pkgctl.resolver")
    let overlay: Overlay
    let upstream: UpstreamFetchCoalescer
    let readQueue = DispatchQueue(label: "pkgctl.local-read", qos: .userInitiated, attributes: .concurrent)

    /// A resolver over `store`; creates `ROOT/cache` when missing. Its metrics (origin fetches,
    /// coalesced waiters, write-through commits, tasks) go to the swift-metrics backend
    /// bootstrapped before this call, if any. Throws ``PkgError/Code/fileSystem`` when the store's
    /// root is not a directory: a typo in its path must not become a new, empty store that serves
    /// nothing (only `pkgctl update` creates a store); nothing is created then.
    public convenience init(store: PackageStore, configuration: ResolverConfiguration = ResolverConfiguration()) throws {
        try Self.checkExists(store)
        try self.init(store: store, routes: try RouteTable.load(from: store), servesFolder: false,
                      configuration: configuration)
    }

    /// A resolver over a build folder instead of a store (`pkgctl serve --source`): `folder` is
    /// its only route, its files are opened on every request, and what it lacks and the origin
    /// sends is written through under `cacheDirectory` (created when missing; the caller removes it).
    /// Throws ``PkgError/Code/invalidArgument`` when the folder's ``SourceFolder/spaFallback`` is
    /// not one of its files, as `pack` refuses it.
    public convenience init(folder: SourceFolder, cacheDirectory: String,
                            configuration: ResolverConfiguration = ResolverConfiguration()) throws {
        let mount = try PackageMount(folder: folder)
        try ManifestEntry.checkSpaFallback(folder.spaFallback, isAFileOf: folder.directory) { name in
            mount.file(at: name)?.relativePath == name  // a folder's index.html is not the folder
        }
        let route = PackageRoute(folder.route)!  // SourceFolder checked it
        let routes = RouteTable(routes: [Route(host: route.host, prefix: route.prefix, mount: mount)], mounts: [mount],
                                packagesStamp: -1)
        try self.init(store: PackageStore(root: cacheDirectory), routes: routes, servesFolder: true,
                      configuration: configuration)
    }

    /// Refuses a store root that does not exist or is not a directory, naming it.
    private static func checkExists(_ store: PackageStore) throws {
        let root = store.layout.root
        var info = stat()
        guard stat(root, &info) == 0 else {
            let error = errno
            throw PkgError(.fileSystem, error == ENOENT
                           ? "store \(root) does not exist; pkgctl update creates a store (is the path right?)"
                           : "store \(root): \(String(cString: strerror(error)))", errno: error)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw PkgError(.fileSystem, "store \(root) is not a directory", errno: ENOTDIR)
        }
    }

    private init(store: PackageStore, routes: RouteTable, servesFolder: Bool, configuration: ResolverConfiguration) throws {
        self.store = store
        self.configuration = configuration
        self.servesFolder = servesFolder
        let metrics = ResolverMetrics()
        self.metrics = metrics
        tasks = TaskTable(metrics: metrics)
        overlay = try Overlay(root: store.layout.overlay)
        table = PosixMutex(routes)
        upstream = UpstreamFetchCoalescer(overlay: overlay, caFile: configuration.caFile,
                                   connectTimeoutMilliseconds: configuration.connectTimeoutMilliseconds,
                                   stalledReaderSeconds: configuration.stalledReaderSeconds, metrics: metrics)
        lastRescan.store(coarseMonotonicNanoseconds(), ordering: .relaxed)
    }

    deinit {
        upstream.shutdown()
        flushSignals()
    }

    // MARK: Tasks

    /// Starts answering `task.request`. Everything the task receives is
    /// delivered as described by ``ResourceTask``, on the thread and within the
    /// flow-control window `delivery` names; with ``TaskDelivery/direct`` a local
    /// hit's response may arrive before this returns. Starting a task that is
    /// already started does nothing.
    public func start(_ task: any ResourceTask, delivery: TaskDelivery = .direct) {
        guard let entry = tasks.insert(task, delivery: delivery) else { return }
        let request = task.request
        let location: Location
        do {
            location = try locate(request, recordingLaunches: true)
        } catch {
            entry.fail(error)
            return
        }
        switch location {
        case .local(let answer, _):
            stream(answer, to: entry)
        case .miss(let miss):
            let plan = upstreamPlan(request, for: miss)
            plan.signals?.countOriginFallback()
            upstream.fetch(plan, for: entry)
        }
    }

    /// Stops `task`: once this returns the task receives nothing more, even if
    /// its file read or origin fetch completes later. Its upstream fetch is
    /// cancelled unless another live task or the overlay write still needs it.
    public func stop(_ task: any ResourceTask) {
        tasks.stop(task)
    }

    /// `task`'s host has consumed `byteCount` more of the bytes delivered to it
    /// (with ``TaskDelivery/Consumption/explicit``): once half its window is
    /// free, a paused source goes on. More than was delivered counts as all of it. Any
    /// thread; ignored for a task that ended.
    public func consumed(_ byteCount: Int, by task: any ResourceTask) {
        tasks.entry(of: task)?.consumed(byteCount)
    }

    /// Tasks started and not yet finished, failed or stopped (a task delivered
    /// through an executor counts until its last callback has run there).
    public var activeTaskCount: Int { tasks.count }

    /// Origin fetches under way (including overlay entries being committed).
    public var upstreamTransfersInFlight: Int { upstream.transfersInFlight }

    /// Cancels every origin fetch and ends the upstream thread, and writes the signals counted
    /// so far to the store. Later misses fail.
    public func shutdown() {
        upstream.shutdown()
        flushSignals()
    }

    /// Adds what the resolver counted under the packages' routes (``ServingSignals``) and has
    /// not written yet to the store now, rather than within a second, and ends the launches under
    /// way (``LaunchRecorder``), waiting until they are written.
    public func flushSignals() {
        for mount in table.withLock({ $0 }).mounts {
            mount.signals?.flush()
            mount.launches?.endLaunch()
        }
        LaunchRecorder.drain()
    }

    /// The host answered `request` itself without starting a task, because it is offline and the
    /// request is a miss (``ResolutionPlan/upstreamURL`` set): it still counts in the launch of a
    /// version on trial by launches, as ``start(_:delivery:)`` would have counted it (a page or a
    /// script the version lacks). The C ABI's offline option calls it; a Swift host that refuses
    /// offline misses itself calls it too.
    public func answeredOffline(_ request: ResourceRequest) {
        _ = try? locate(request, recordingLaunches: true)
    }

    /// The host's report that the launch under way of the page at `url` failed in a way only the
    /// host sees (a page error, a render deadline missed), in `detail`'s words: the launch counts
    /// as bad (``LaunchProblem/Reason/host``). Returns false, changing nothing, when `url` is under
    /// no version on trial by launches or no launch of it is under way.
    @discardableResult
    public func reportLaunchProblem(url: String, detail: String) -> Bool {
        let request = ResourceRequest(url: url)
        guard let path = try? RequestPath.decode(Substring(request.rawPath)),
              let launches = route(host: request.host, path: path)?.route.mount.launches else { return false }
        return launches.hostReported(detail)
    }
}
