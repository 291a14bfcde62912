/// What ``Updater`` does with a run's outcomes when ``OutcomeReporting`` is on: turns them, and
/// the resolvers' ``ServingSignals``, into ``OutcomeReport``s and adds them to the store's
/// ``ReportSpool`` as soon as they are known
/// (so a run that fails later, or is killed, still leaves them), then sends everything
/// waiting, oldest first, within the reporting's time budget. Any HTTP answer counts as delivered (the
/// origin logged the request); a failure to connect or a timeout leaves the rest for a later run.
struct OutcomeReporter {
    let reporting: OutcomeReporting
    let spool: ReportSpool
    /// `URL?` without the query.
    let destination: String
    let caFile: String?

    /// Adds the reports of `run` to the spool. Never throws: reporting must not fail an update.
    func spool(_ run: UpdateReport, deviceID: String) {
        let reports = run.reverted.compactMap { OutcomeReport($0, wasReverted: true, deviceID: deviceID, client: reporting.client) }
            + run.packages.compactMap { OutcomeReport($0, wasReverted: false, deviceID: deviceID, client: reporting.client) }
        try? spool.add(reports)
    }

    /// Adds a `serving` report for each installed version whose ``ServingSignals`` grew since
    /// they were last reported: totals, so a lost or repeated report neither loses nor doubles
    /// a count. Never throws.
    func spoolSignals(_ store: PackageStore, deviceID: String) {
        let reports = ServingSignals.all(store.layout).compactMap { name, version, signals -> OutcomeReport? in
            guard FileSystem.exists(store.layout.recordFile(name, version)) else { return nil }
            return OutcomeReport(package: name, release: version, from: nil, outcome: .serving,
                                 notFound: signals.notFound, originFallbacks: signals.originFallbacks,
                                 device: DevicePseudonym.make(deviceID: deviceID, package: name, release: version),
                                 client: reporting.client)
        }
        try? spool.add(reports)
        try? spool.forgetSignals { !FileSystem.exists(store.layout.recordFile($0, $1)) }
    }

    /// Adds a `confirmed` or `reverted` report for each trial by launches settled since the last
    /// run, and marks it reported. Never throws.
    func spoolLaunchVerdicts(_ store: PackageStore, deviceID: String) {
        for (name, version, tally) in LaunchTally.all(store.layout) {
            guard let verdict = tally.verdict, !verdict.reported else { continue }
            let report = OutcomeReport(verdict, package: name, release: version, deviceID: deviceID, client: reporting.client)
            guard (try? spool.add([report])) != nil else { return }
            try? LaunchTally.update(name: name, version: version, layout: store.layout) { tally in
                tally.verdict?.reported = true
                return true
            }
        }
    }

    /// Sends what waits, within the reporting's budget and what is left of `deadline` (the
    /// run's own bound: no transfer starts past it); returns how many reached the origin.
    @discardableResult
    func deliver(within deadline: Deadline?) -> Int {
        var budget = reporting.timeBudget
        if let deadline { budget = min(budget, Double(deadline.remainingMilliseconds) / 1000) }
        guard budget > 0 else { return 0 }
        return (try? deliver(budget: budget)) ?? 0
    }

    private func deliver(budget: Double) throws -> Int {
        let waiting = try spool.pending()
        guard !waiting.isEmpty else { return 0 }
        let options = TransferOptions(caFile: caFile, connectTimeout: 2, stallTimeout: 2, minimumRate: 1,
                                      deadline: Deadline(after: budget), maxAttempts: 1)
        let downloader = Downloader(options: options)
        var delivered = 0
        for (file, query) in waiting {
            do {
                _ = try downloader.fetch(destination + "?" + query, validators: nil, maxBytes: 64 * 1024)
            } catch let error as PkgError where error.code == .httpStatus || error.code == .responseTooLarge {
                // Answered: the request is in the origin's log.
            } catch {
                break  // unreachable or out of time: the rest waits for the next run
            }
            spool.delivered(file)
            delivered += 1
        }
        return delivered
    }

    /// The reporter for a run against `manifestURL`, or nil when reports cannot reach an
    /// origin's log (a `file:` manifest with no report URL of its own).
    static func make(_ reporting: OutcomeReporting?, store: PackageStore, manifestURL: String,
                     caFile: String?) -> OutcomeReporter? {
        guard let reporting, let destination = try? reporting.destination(manifestURL: manifestURL),
              destination.hasPrefix("http://") || destination.hasPrefix("https://") else { return nil }
        return OutcomeReporter(reporting: reporting, spool: ReportSpool(layout: store.layout),
                               destination: destination, caFile: caFile)
    }
}
