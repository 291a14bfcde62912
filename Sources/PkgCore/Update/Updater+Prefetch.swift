import Dispatch

extension Updater {
    /// After a run: for each release the run activated whose entry lists URLs to prefetch,
    /// fetches them into the overlay through a ``Resolver`` over the store, all within
    /// ``UpdatePrefetch/timeLimit``, and reports each package's results as
    /// ``UpdateEvent/prefetched(name:version:results:)``. A URL the overlay already holds
    /// costs nothing. Nothing here fails the update: a resolver that cannot start is
    /// reported as every URL failing.
    func prefetchActivated(_ report: UpdateReport, progress: @Sendable (UpdateEvent) -> Void) {
        guard let policy = prefetch else { return }
        let activated: Set<UpdateReport.Action> = [.installed, .upgraded, .downgraded, .republished]
        let lists = report.packages.compactMap { outcome -> (name: String, version: String, urls: [String])? in
            guard outcome.error == nil, activated.contains(outcome.action),
                  store.activeVersion(of: outcome.name) == outcome.to,
                  let urls = try? store.record(of: outcome.name, version: outcome.to)?.entry.prefetch, !urls.isEmpty
            else { return nil }
            return (outcome.name, outcome.to, urls)
        }
        guard !lists.isEmpty else { return }
        let started = DispatchTime.now().uptimeNanoseconds
        let resolver: Resolver
        do {
            resolver = try Resolver(store: store, configuration: policy.resolver)
        } catch {
            let failure = (error as? PkgError) ?? PkgError(.fileSystem, "\(error)")
            for list in lists {
                progress(.prefetched(name: list.name, version: list.version, results: list.urls.map {
                    PrefetchResult(url: $0, outcome: .failed(failure), bytes: 0)
                }))
            }
            return
        }
        defer { resolver.shutdown() }
        for list in lists {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            let results = resolver.prefetch(list.urls, concurrency: policy.concurrency,
                                            timeLimit: max(0, policy.timeLimit - elapsed))
            progress(.prefetched(name: list.name, version: list.version, results: results))
        }
    }
}
