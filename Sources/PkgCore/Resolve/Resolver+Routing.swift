/// Routing requests to the active packages' routes, following updates.
extension Resolver {
    /// Where browsing `host` starts when no installed package serves its root: the
    /// path of its first route (`/app/` for `www.example.com/app`), percent-encoded;
    /// nil when a package serves `/` or none is routed for `host`. Follows updates
    /// as routing does. (The preview server redirects `GET /` there.)
    public func entryPath(forHost host: String) -> String? {
        let host = host.lowercased()
        if route(host: host, path: "/") != nil { return nil }
        return table.withLock { $0 }.entryPath(host: host)
    }

    /// Every route served now, as a manifest writes it (`www.example.com/app`, `localhost`), in
    /// package-name then manifest order; none for an empty store.
    package var routeNames: [String] {
        table.withLock { $0 }.routes.map { $0.host + $0.prefix }
    }

    /// Whether some route serves `host` (named with or without its port, as requests are routed).
    package func routesHost(_ host: String) -> Bool {
        table.withLock { $0 }.hasRoutes(host: host.lowercased())
    }

    /// The percent-encoded path of the route that serves `rawPath` on `host`, with a trailing
    /// slash (`/app/`; `/` for the host's root), or nil when no route does or the path is refused.
    /// Follows updates as routing does.
    package func routePath(host: String, rawPath: Substring) -> String? {
        guard let path = try? RequestPath.decode(rawPath), let match = route(host: host.lowercased(), path: path) else {
            return nil
        }
        return RequestPath.encode(match.route.prefix) + "/"
    }

    /// Forces the route snapshot to be rebuilt from the store (a folder's route never changes).
    public func reload() throws {
        if servesFolder { return }
        let fresh = try RouteTable.load(from: store)
        table.withLock { $0 = fresh }
    }

    /// Routes with the current snapshot, rebuilding it when `current` moved or packages changed.
    /// A matched request checks its own package's `current`; a request no route matches checks
    /// every package's (a new version may have added the route), and so does the periodic rescan.
    func route(host: String, path: String) -> RouteMatch? {
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
}
