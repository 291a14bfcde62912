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
    private let tasks: TaskTable
    private let table: PosixMutex<RouteTable>
    /// Whether the routes are a build folder's, fixed for the resolver's life (no store to watch).
    private let servesFolder: Bool
    private let lastRescan = Atomic<Int64>(0)
    /// After a failed reload of the routes, none is tried before this time (coarse monotonic ns).
    private let routeReloadAllowedAt = Atomic<Int64>(0)
    /// Failed reloads of the routes, for tests; metrics and the log have them too.
    let routeReloadFailureCount = Atomic<Int>(0)
    private let metrics: ResolverMetrics
    private let logger = Logger(label: "pkgctl.resolver")
    private let overlay: Overlay
    let upstream: UpstreamFetchCoalescer
    private let readQueue = DispatchQueue(label: "pkgctl.local-read", qos: .userInitiated, attributes: .concurrent)

    /// A resolver over `store`; creates `ROOT/cache` when missing. Its metrics (origin fetches,
    /// coalesced waiters, write-through commits, tasks) go to the swift-metrics backend
    /// bootstrapped before this call, if any.
    public convenience init(store: PackageStore, configuration: ResolverConfiguration = ResolverConfiguration()) throws {
        try self.init(store: store, routes: try RouteTable.load(from: store), servesFolder: false,
                      configuration: configuration)
    }

    /// A resolver over a build folder instead of a store (`pkgctl serve --source`): `folder` is
    /// its only route, its files are opened on every request, and what it lacks and the origin
    /// sends is written through under `cacheDirectory` (created when missing; the caller removes it).
    public convenience init(folder: SourceFolder, cacheDirectory: String,
                            configuration: ResolverConfiguration = ResolverConfiguration()) throws {
        let mount = try PackageMount(folder: folder)
        let route = PackageRoute(folder.route)!  // SourceFolder checked it
        let routes = RouteTable(routes: [Route(host: route.host, prefix: route.prefix, mount: mount)], mounts: [mount],
                                packagesStamp: -1)
        try self.init(store: PackageStore(root: cacheDirectory), routes: routes, servesFolder: true,
                      configuration: configuration)
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
            location = try locate(request)
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
    /// not written yet to the store now, rather than within a second.
    public func flushSignals() {
        for mount in table.withLock({ $0 }).mounts { mount.signals?.flush() }
    }

    // MARK: Fast path

    /// The local answer for a GET or HEAD, or nil when neither the package nor
    /// the overlay has the file (then use ``start(_:delivery:)``). Throws
    /// ``PkgError/Code/invalidArgument`` for a refused path. The server's fast
    /// path: send `answer.response`, then `answer.range` of `answer.file` with
    /// `sendfile`/`FileRegion`; no task, no copy.
    public func answerLocally(_ request: ResourceRequest) throws(PkgError) -> LocalAnswer? {
        guard request.isRead else { return nil }
        if case .local(let answer, _) = try locate(request) { return answer }
        return nil
    }

    /// Where browsing `host` starts when no installed package serves its root: the
    /// path of its first route (`/app/` for `www.example.com/app`), percent-encoded;
    /// nil when a package serves `/` or none is routed for `host`. Follows updates
    /// as routing does. (The preview server redirects `GET /` there.)
    public func entryPath(forHost host: String) -> String? {
        let host = host.lowercased()
        if route(host: host, path: "/") != nil { return nil }
        return table.withLock { $0 }.entryPath(host: host)
    }

    /// Forces the route snapshot to be rebuilt from the store (a folder's route never changes).
    public func reload() throws {
        if servesFolder { return }
        let fresh = try RouteTable.load(from: store)
        table.withLock { $0 = fresh }
    }

    /// What ``start(_:delivery:)`` would do for `request`, without fetching anything.
    public func plan(for request: ResourceRequest) throws(PkgError) -> ResolutionPlan {
        switch try locate(request) {
        case .local(let answer, let resourceClass):
            var plan = ResolutionPlan(resourceClass: resourceClass, localFile: answer.file?.path,
                                      fromOverlay: false, coalesced: false)
            switch answer.source {
            case .package(let name, let version):
                plan.package = name
                plan.version = version
            case .overlay(let name, let version):
                plan.package = name
                plan.version = version
                plan.fromOverlay = true
            }
            return plan
        case .miss(let miss):
            let upstreamPlan = upstreamPlan(request, for: miss)
            return ResolutionPlan(resourceClass: miss.resourceClass, package: miss.match?.route.mount.name,
                                  version: miss.match?.route.mount.version, localFile: nil, fromOverlay: false,
                                  upstreamURL: upstreamPlan.url,
                                  overlayPath: upstreamPlan.overlayKey.map { overlay.root + "/" + $0 },
                                  coalesced: upstreamPlan.coalescingKey != nil)
        }
    }

    // MARK: Locating

    enum Location {
        case local(LocalAnswer, ResourceClass)
        case miss(Miss)
    }

    /// A request neither the package nor the overlay answers (every non-GET/HEAD one is such):
    /// what its upstream plan is built from, only when it is fetched or planned.
    struct Miss {
        let resourceClass: ResourceClass
        let match: RouteMatch?
        let overlayKey: String?
    }

    func locate(_ request: ResourceRequest) throws(PkgError) -> Location {
        let path = try RequestPath.decode(request.rawPath)
        try RequestPath.checkQuery(request.query)
        let resourceClass = ResourceClass.classify(accept: request.header("Accept"), path: path)
        let match = route(host: request.host, path: path)
        let isRead = request.isRead
        if isRead, let match {
            let mount = match.route.mount
            var file = mount.file(at: match.relativePath)
            var fellBack = false
            if file == nil, let fallback = mount.spaFallback, resourceClass == .html {
                // A navigation to a route of a single-page app: its document handles the path.
                file = mount.file(at: fallback)
                fellBack = file != nil
            }
            if file == nil, isRead, let answer = onlyImageVariantAnswer(request, match) {
                return .local(answer, resourceClass)
            }
            if let file {
                let source = LocalAnswer.Source.package(name: mount.name, version: mount.version)
                // A folder named without its slash is redirected to it, as nginx does: served
                // here, the page's relative URLs would resolve one folder up.
                // (A folder's index was opened: its path is the one asked for plus "/index.html".)
                if match.lacksTrailingSlash || (file.relativePath.utf8.count == match.relativePath.utf8.count + 11
                                                && file.relativePath.hasSuffix("/index.html")) {
                    // One leading slash: `//docs/` would be another host's URL (protocol-relative).
                    var path = Substring(request.rawPath)
                    while path.hasPrefix("//") { path = path.dropFirst() }
                    let location = String(path) + "/" + (request.query.isEmpty ? "" : "?" + request.query)
                    return .local(LocalAnswer.redirect(to: location, source: source), resourceClass)
                }
                let type = MediaType.forPath(file.relativePath, fallback: resourceClass)
                let codings = mount.codings(besides: file.relativePath)
                let markedImmutable = mount.isMarkedImmutable(file.relativePath)
                let declared = mount.declaredHeaders(for: file.relativePath)
                if ImageVariant.mayHaveVariants(file.relativePath) {
                    let variants = mount.imageVariants(besides: file.relativePath)
                    if !variants.isEmpty {
                        let vary = LocalAnswer.varyValue(accept: true, encoding: !codings.isEmpty)
                        if let variant = ImageVariant.preferred(for: request.header("Accept"), among: variants),
                           let lighter = mount.file(at: file.relativePath + variant.fileSuffix), lighter.size < file.size {
                            return .local(LocalAnswer.make(file: lighter, request: request, contentType: variant.mediaType,
                                                           source: source, vary: vary, servedPath: file.relativePath,
                                                           markedImmutable: markedImmutable, declared: declared),
                                          resourceClass)
                        }
                        return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source,
                                                       vary: vary, markedImmutable: markedImmutable, declared: declared),
                                      resourceClass)
                    }
                }
                // A sibling the site made itself may be larger than the file: then the file goes out.
                if let coding = ContentCoding.preferred(for: request.header("Accept-Encoding"), among: codings),
                   let encoded = mount.file(at: file.relativePath + coding.fileSuffix), encoded.size < file.size {
                    return .local(LocalAnswer.make(file: encoded, request: request, contentType: type, source: source,
                                                   coding: coding, vary: LocalAnswer.varyValue(accept: fellBack, encoding: true),
                                                   markedImmutable: markedImmutable, declared: declared),
                                  resourceClass)
                }
                return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source,
                                               vary: LocalAnswer.varyValue(accept: fellBack, encoding: !codings.isEmpty),
                                               markedImmutable: markedImmutable, declared: declared), resourceClass)
            }
        }
        let overlayKey = Overlay.key(host: request.host, path: path, query: request.query, match: match)
        if isRead, let overlayKey {
            let source = LocalAnswer.Source.overlay(package: match?.route.mount.name, version: match?.route.mount.version)
            if let file = overlay.open(overlayKey) {
                let type = MediaType.forPath(file.relativePath, fallback: resourceClass)
                return .local(LocalAnswer.make(file: file, request: request, contentType: type, source: source),
                              resourceClass)
            }
            if let stored = overlay.openRepresentation(key: overlayKey, headers: request.headers) {
                return .local(LocalAnswer.make(file: stored.file, request: request, contentType: stored.contentType,
                                               source: source, vary: stored.vary), resourceClass)
            }
        }
        return .miss(Miss(resourceClass: resourceClass, match: match, overlayKey: overlayKey))
    }

    /// The answer for a PNG or JPEG that the active version holds only as image variants
    /// (installed by `update --accept-images`, or shipped so by the site): the one `Accept`
    /// prefers, else the first there that `Accept` does not refuse by name (the device said its
    /// engine decodes it; a wildcard does not name it). Nil when there is none: the request
    /// goes on as a miss.
    private func onlyImageVariantAnswer(_ request: ResourceRequest, _ match: RouteMatch) -> LocalAnswer? {
        let mount = match.route.mount, path = match.relativePath
        guard ImageVariant.mayHaveVariants(path) else { return nil }
        let variants = mount.imageVariants(besides: path)
        guard let variant = ImageVariant.preferred(for: request.header("Accept"), among: variants)
                ?? ImageVariant.allCases.first(where: { variants.contains($0) && !$0.isRefused(by: request.header("Accept")) }),
              let file = mount.file(at: path + variant.fileSuffix) else { return nil }
        return LocalAnswer.make(file: file, request: request, contentType: variant.mediaType,
                                source: .package(name: mount.name, version: mount.version), vary: "Accept",
                                servedPath: path, markedImmutable: mount.isMarkedImmutable(path),
                                declared: mount.declaredHeaders(for: path))
    }

    private func upstreamPlan(_ request: ResourceRequest, for miss: Miss) -> UpstreamPlan {
        let resourceClass = miss.resourceClass, match = miss.match, overlayKey = miss.overlayKey
        var base = "https://" + request.host
        if let match {
            let routeKey = match.route.host + match.route.prefix
            if let override = configuration.routeUpstreams[routeKey] ?? configuration.routeUpstreams[match.route.host]
                ?? configuration.upstream {
                base = override
            }
        } else if let override = configuration.upstream {
            base = override
        }
        var url = base + request.rawPath
        if !request.query.isEmpty { url += "?" + request.query }
        let isGet = request.method == "GET"
        let ranged = request.header("Range") != nil
        let shareable = isGet && resourceClass != .other && !ranged
        let writesThrough: Bool
        switch resourceClass {
        case .html, .script, .style: writesThrough = true
        case .image: writesThrough = configuration.writeThroughImages || request.isPrefetch
        case .other: writesThrough = false
        }
        var headers = request.headers
        if shareable {
            // One full, identity-coded 200 for every task sharing the fetch and for the overlay.
            headers.removeAll { UpstreamPlan.droppedFromSharedFetches.contains($0.name.lowercased()) }
        }
        // An answer to a request with credentials is for that user alone (RFC 9111 §3.5).
        let hasCredentials = request.header("Authorization") != nil
        var coalescingKey: String?
        if shareable {
            // Requests with different credentials never share an answer.
            // Nor do requests an origin may answer otherwise by content negotiation (Vary).
            coalescingKey = url + "\n" + (request.header("Cookie") ?? "") + "\n" + (request.header("Authorization") ?? "")
                + "\n" + (request.header("Accept") ?? "") + "\n" + (request.header("Accept-Language") ?? "")
        }
        return UpstreamPlan(url: url, method: request.method, headers: headers, body: request.body,
                            resourceClass: resourceClass, coalescingKey: coalescingKey,
                            overlayKey: shareable && writesThrough && !hasCredentials ? overlayKey : nil,
                            signals: Self.countsAsSignal(request, resourceClass) ? match?.route.mount.signals : nil)
    }

    /// Whether a miss of `request` says something about the package (``ServingSignals``): a read
    /// of a page, script, style or image it could have shipped; not an API call (`other`, POST).
    private static func countsAsSignal(_ request: ResourceRequest, _ resourceClass: ResourceClass) -> Bool {
        request.isRead && resourceClass != .other
    }

    /// Routes with the current snapshot, rebuilding it when `current` moved or packages changed.
    /// A matched request checks its own package's `current`; a request no route matches checks
    /// every package's (a new version may have added the route), and so does the periodic rescan.
    private func route(host: String, path: String) -> RouteMatch? {
        var snapshot = table.withLock { $0 }
        if servesFolder { return snapshot.match(host: host, path: path) }
        let now = coarseMonotonicNanoseconds()
        if now - lastRescan.load(ordering: .relaxed) > Int64(configuration.packageRescanMilliseconds) * 1_000_000 {
            lastRescan.store(now, ordering: .relaxed)
            if FileSystem.modificationStamp(store.layout.packages) != snapshot.packagesStamp || !snapshot.isCurrent {
                snapshot = refreshed(from: snapshot)
            }
        }
        guard let match = snapshot.match(host: host, path: path) else {
            return snapshot.isCurrent ? nil : refreshed(from: snapshot).match(host: host, path: path)
        }
        if match.route.mount.isCurrent() { return match }
        return refreshed(from: snapshot).match(host: host, path: path)
    }

    /// Rebuilds the snapshot unless another thread already replaced `stale`. When the store
    /// cannot be read, the previous routes go on serving: the failure is logged and counted,
    /// and the next reload waits a second rather than retrying on every request.
    private func refreshed(from stale: RouteTable) -> RouteTable {
        table.withLock { current in
            if current !== stale { return current }
            let now = coarseMonotonicNanoseconds()
            guard now >= routeReloadAllowedAt.load(ordering: .relaxed) else { return current }
            do {
                current = try RouteTable.load(from: store)
            } catch {
                routeReloadAllowedAt.store(now + 1_000_000_000, ordering: .relaxed)
                routeReloadFailureCount.add(1, ordering: .relaxed)
                metrics.routeReloadFailed()
                logger.error("routes of \(store.layout.root) not reloaded, the previous ones still serve: \(error)")
            }
            return current
        }
    }

    // MARK: Local streaming

    private func stream(_ answer: LocalAnswer, to entry: TaskEntry) {
        guard entry.deliver(answer.response) else { return }
        guard let file = answer.file else {
            entry.finish()
            return
        }
        let chunk = max(4096, configuration.chunkSize)
        readQueue.async {
            Self.pump(file, from: answer.range.lowerBound, to: answer.range.upperBound, chunk: chunk, entry: entry,
                      queue: self.readQueue)
        }
    }

    /// Reads and delivers one chunk, then queues the next: a stopped task stops the reads at once,
    /// and a full window parks them until the host has consumed half of it.
    private static func pump(_ file: LocalFile, from offset: Int64, to end: Int64, chunk: Int, entry: TaskEntry,
                             queue: DispatchQueue) {
        guard entry.isLive else { return }
        let resume: @Sendable () -> Void = {
            queue.async { pump(file, from: offset, to: end, chunk: chunk, entry: entry, queue: queue) }
        }
        guard entry.hasRoom(orCall: resume) else { return }
        let count = Int(min(Int64(chunk), end - offset))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let read = file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            if read <= 0 {
                entry.fail(read < 0 ? fileSystemError("read", file.path)
                                    : PkgError(.fileSystem, "read \(file.path): file shrank while being served"))
                return
            }
            done += read
        }
        guard entry.deliver(UnsafeRawBufferPointer(buffer)) else { return }
        let next = offset + Int64(count)
        if next >= end {
            entry.finish()
        } else {
            queue.async { pump(file, from: next, to: end, chunk: chunk, entry: entry, queue: queue) }
        }
    }
}
