import Dispatch

extension Resolver {
    /// URLs a prefetch fetches at once unless told otherwise.
    public static let defaultPrefetchConcurrency = 6
    /// Most URLs a prefetch fetches at once, whatever it is told.
    public static let maximumPrefetchConcurrency = 64

    /// Fetches `urls` (request URLs, `app://www.example.com/app/img/a.png`) from the origin
    /// into the overlay ahead of use, so an offline device can answer them; blocks until
    /// each is decided or `timeLimit` seconds have passed.
    ///
    /// Each URL is a GET through the resolver's normal path: classified, routed, looked up in
    /// the package and the overlay (a hit costs nothing), else fetched as ``start(_:delivery:)``
    /// fetches a miss, joining a live task's fetch of it, from the configured upstream with the
    /// configured CA file, and written through under the usual rules. One rule differs: a
    /// prefetched image is written through even when ``ResolverConfiguration/writeThroughImages``
    /// is off, since a prefetch is an explicit request to keep it. The request carries
    /// `headers` (e.g. a `Cookie`) and, unless they name one, an `Accept` for a document
    /// (`text/html`) when the path ends in `/`, `.html` or `.htm` or its last segment has no
    /// extension, else `*/*`.
    ///
    /// At most `concurrency` (1 to ``maximumPrefetchConcurrency``) URLs are fetched at once.
    /// Past `timeLimit`, the fetches still running are stopped and they and the URLs not
    /// started yet fail. (A stopped fetch whose answer is being written through runs on to
    /// the end for the overlay, as any task's does, unless the resolver is shut down.) `progress` is called on the calling thread each time a URL is decided.
    /// Returns one result per URL, in order.
    ///
    /// ```swift
    /// let results = resolver.prefetch(["app://www.example.com/app/img/a.png"], timeLimit: 60)
    /// for result in results where result.outcome.isFailure { print(result.url, result.outcome) }
    /// ```
    public func prefetch(_ urls: [String], headers: [(name: String, value: String)] = [],
                         concurrency: Int = Resolver.defaultPrefetchConcurrency, timeLimit: Double? = nil,
                         progress: (PrefetchProgress) -> Void = { _ in }) -> [PrefetchResult] {
        let width = min(max(1, concurrency), Self.maximumPrefetchConcurrency)
        let deadline = timeLimit.map { DispatchTime.now() + max(0, $0) } ?? .distantFuture
        var outcomes = [PrefetchOutcome?](repeating: nil, count: urls.count)
        var bytes = [Int64](repeating: 0, count: urls.count)
        var fetched: [PrefetchTask] = []
        var running: [Int: PrefetchTask] = [:]
        let ended = PosixMutex<[PrefetchTask]>([])
        let endedSignal = DispatchSemaphore(value: 0)
        var next = 0, done = 0, receivedBytes: Int64 = 0
        func decided(_ index: Int, _ outcome: PrefetchOutcome?, bytes count: Int64 = 0) {
            outcomes[index] = outcome
            bytes[index] = count
            receivedBytes += count
            done += 1
            progress(PrefetchProgress(done: done, total: urls.count, bytes: receivedBytes))
        }
        func collect(_ task: PrefetchTask) {
            running[task.index] = nil
            let result = task.result
            let outcome = Self.fetchOutcome(task, result)
            if outcome == nil { fetched.append(task) }
            decided(task.index, outcome, bytes: result.bytes)
        }
        while next < urls.count || !running.isEmpty {
            // Nothing starts past the deadline (an update's later lists may have none left).
            while running.count < width, next < urls.count, DispatchTime.now() < deadline {
                let index = next
                next += 1
                if let refusal = PrefetchList.refusal(of: urls[index]) {
                    decided(index, .failed(PkgError(.invalidArgument, "URL '\(urls[index].escapedForMessage)' \(refusal)")))
                    continue
                }
                let request = Self.prefetchRequest(urls[index], headers: headers)
                let plan: ResolutionPlan
                do {
                    plan = try self.plan(for: request)
                } catch {
                    decided(index, .failed(error))
                    continue
                }
                if plan.upstreamURL == nil {
                    decided(index, plan.fromOverlay ? .inOverlay
                            : .inPackage(name: plan.package ?? "", version: plan.version ?? ""))
                    continue
                }
                let task = PrefetchTask(request, index: index, writesThrough: plan.overlayPath != nil) { task in
                    ended.withLock { $0.append(task) }
                    endedSignal.signal()
                }
                running[index] = task
                start(task)
            }
            if running.isEmpty {
                if next < urls.count, DispatchTime.now() >= deadline { break }
                continue
            }
            if endedSignal.wait(timeout: deadline) == .timedOut { break }
            for task in ended.withLock({ list in defer { list.removeAll() }; return list }) { collect(task) }
            // One signal was taken for tasks that may have ended together: a spare one must not
            // carry the loop past the deadline.
            if DispatchTime.now() >= deadline, next < urls.count || !running.isEmpty { break }
        }
        if !running.isEmpty || next < urls.count {
            let seconds = DecimalText.tenths(timeLimit ?? 0, droppingZeroTenth: true)
            for task in running.values { stop(task) }  // after this, none of them hears anything more
            for task in ended.withLock({ list in defer { list.removeAll() }; return list }) { collect(task) }
            for task in running.values.sorted(by: { $0.index < $1.index }) {
                running[task.index] = nil
                decided(task.index, .failed(PkgError(.deadlineExceeded, "\(urls[task.index].escapedForMessage): "
                                                     + "not fetched within the prefetch's \(seconds) s")),
                        bytes: task.result.bytes)
            }
            while next < urls.count {
                decided(next, .failed(PkgError(.deadlineExceeded, "\(urls[next].escapedForMessage): not started "
                                               + "within the prefetch's \(seconds) s")))
                next += 1
            }
        }
        waitForOverlayCommits()
        for task in fetched { outcomes[task.index] = keptOutcome(task) }
        return urls.indices.map { PrefetchResult(url: urls[$0], outcome: outcomes[$0]!, bytes: bytes[$0]) }
    }

    /// Waits until every overlay entry whose fetch has ended is committed (a task hears
    /// `didFinish` only once its entry's commit is queued).
    func waitForOverlayCommits() {
        upstream.commitQueue.sync {}
    }

    /// The GET a prefetch of `url` makes (see ``prefetch(_:headers:concurrency:timeLimit:progress:)``).
    static func prefetchRequest(_ url: String, headers: [(name: String, value: String)]) -> ResourceRequest {
        var request = ResourceRequest(url: url, headers: headers)
        request.isPrefetch = true
        if request.header("Accept") == nil {
            let last = request.rawPath.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
            let document = last.isEmpty || last.hasSuffix(".html") || last.hasSuffix(".htm") || !last.contains(".")
            request.headers.append(("Accept", document ? "text/html,*/*;q=0.8" : "*/*"))
        }
        return request
    }

    /// The outcome of a task that ended, or nil for a successful answer, whose outcome
    /// depends on the overlay once its commit ran (``keptOutcome(_:)``).
    private static func fetchOutcome(_ task: PrefetchTask,
                                     _ result: (response: ResourceResponse?, bytes: Int64, error: PkgError?))
        -> PrefetchOutcome? {
        if let error = result.error { return .failed(error) }
        guard let status = result.response?.status, (200..<300).contains(status) else {
            let status = result.response?.status ?? 0
            return .failed(PkgError(.httpStatus, "\(task.request.url.escapedForMessage): the origin answered \(status)",
                                    httpStatus: status))
        }
        return nil
    }

    /// Kept when the overlay now answers `task`'s request; else why not.
    private func keptOutcome(_ task: PrefetchTask) -> PrefetchOutcome {
        let request = task.request
        if let plan = try? plan(for: request), plan.fromOverlay { return .kept }
        guard task.writesThrough else {
            let resourceClass = ResourceClass.classify(accept: request.header("Accept"),
                                                       path: (try? RequestPath.decode(request.rawPath)) ?? "")
            if resourceClass == .other { return .notKept(.resourceClass(resourceClass)) }
            if !request.query.isEmpty { return .notKept(.query) }
            if request.header("Authorization") != nil { return .notKept(.credentials) }
            return .notKept(.host)
        }
        return .notKept(Self.refusal(of: task.result.response) ?? .notCommitted)
    }

    /// What in an origin's answer keeps it out of the overlay, as ``UpstreamFetch`` judges it.
    private static func refusal(of response: ResourceResponse?) -> PrefetchOutcome.Reason? {
        guard let response else { return nil }
        if response.status != 200 { return .answer("status \(response.status)") }
        for field in response.headers {
            let name = field.name.lowercased()
            let value = field.value.escapedForMessage
            if name == "set-cookie" { return .answer("Set-Cookie") }
            if name == "cache-control", value.containsASCIICaseInsensitive("no-store")
                || value.containsASCIICaseInsensitive("private") {
                return .answer("Cache-Control: \(value)")
            }
            if name == "content-encoding", !asciiCaseInsensitiveEqual(field.value, "identity") {
                return .answer("Content-Encoding: \(value)")
            }
            if name == "vary", field.value.contains("*") { return .answer("Vary: *") }
        }
        return nil
    }
}
