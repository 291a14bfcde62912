/// What ``Updater`` does with a run's outcomes when ``OutcomeReporting`` is on: turns them into
/// ``OutcomeReport``s, adds them to the store's ``ReportSpool``, and sends everything waiting,
/// oldest first, within the reporting's time budget. Any HTTP answer counts as delivered (the
/// origin logged the request); a failure to connect or a timeout leaves the rest for a later run.
struct OutcomeReporter {
    let reporting: OutcomeReporting
    let spool: ReportSpool
    /// `URL?` without the query.
    let destination: String
    let caFile: String?

    /// Spools and sends the reports of `run`; returns how many reports reached the origin.
    /// Never throws: reporting must not fail an update.
    @discardableResult
    func report(_ run: UpdateReport, deviceID: String) -> Int {
        let reports = run.reverted.compactMap { OutcomeReport($0, wasReverted: true, deviceID: deviceID, client: reporting.client) }
            + run.packages.compactMap { OutcomeReport($0, wasReverted: false, deviceID: deviceID, client: reporting.client) }
        do {
            try spool.add(reports)
            return try deliver()
        } catch {
            return 0
        }
    }

    private func deliver() throws -> Int {
        let waiting = try spool.pending()
        guard !waiting.isEmpty else { return 0 }
        let options = TransferOptions(caFile: caFile, connectTimeout: 2, stallTimeout: 2, minimumRate: 1,
                                      deadline: Deadline(after: reporting.timeBudget), maxAttempts: 1)
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
