import Dispatch
import Logging
import Synchronization

/// The launches of one mounted package version on trial by launches (``LaunchTrialRule``), as its
/// resolver sees them. A navigation the version answers starts a launch; the requests under the
/// version's routes in the ``windowSeconds`` that follow belong to it. A script or stylesheet the
/// version lacks makes it bad (``LaunchProblem/Reason/missingFile``), as does the host's report;
/// a navigation the version has no page for is a bad launch at once (``LaunchProblem/Reason/noPage``).
/// What the origin does (offline, slow, failing) never makes a launch bad: only what the package
/// lacks does. A launch ends when its window passes, when the next navigation starts, or when the
/// resolver shuts down; then it is added to the store's ``LaunchTally`` and the trial settled.
final class LaunchRecorder: Sendable {
    let name: String
    let version: String
    private let layout: StoreLayout
    private let open = Mutex<OpenLaunch?>(nil)
    private let logger = Logger(label: "pkgctl.resolver")
    /// The queue launches are written and trials settled on: off the request path, one at a time.
    private static let writer = DispatchQueue(label: "pkgctl.launches", qos: .utility)

    /// Seconds after its navigation in which a request belongs to a launch.
    static let windowSeconds = 10

    /// One launch under way.
    private struct OpenLaunch {
        let serial: UInt64
        let startedAt: Int64
        var missingCount = 0
        var missingPaths: [String] = []
        var hostProblem: LaunchProblem?

        var problem: LaunchProblem? {
            if let hostProblem { return hostProblem }
            guard missingCount > 0 else { return nil }
            return LaunchProblem(reason: .missingFile, missingCount: missingCount, paths: missingPaths)
        }
    }

    private let serials = Atomic<UInt64>(0)

    init(name: String, version: String, layout: StoreLayout) {
        self.name = name
        self.version = version
        self.layout = layout
    }

    deinit {
        if let launch = open.withLock({ $0.take() }) { record(launch.problem) }
    }

    /// A navigation under the version's routes: `answered` when the version had its page.
    func navigation(path: String, answered: Bool) {
        let now = coarseMonotonicNanoseconds()
        let serial = serials.add(1, ordering: .relaxed).newValue
        let ended = open.withLock { launch -> OpenLaunch? in
            let ended = launch.take()
            if answered { launch = OpenLaunch(serial: serial, startedAt: now) }
            return ended
        }
        if let ended { record(ended.problem) }
        if !answered {
            record(LaunchProblem(reason: .noPage, paths: [path]))
            return
        }
        Self.writer.asyncAfter(deadline: .now() + .seconds(Self.windowSeconds)) { [weak self] in
            self?.end(serial: serial)
        }
    }

    /// A read under the version's routes that the version lacked (`resourceClass` as classified).
    func missed(path: String, resourceClass: ResourceClass) {
        guard resourceClass == .script || resourceClass == .style else { return }
        let now = coarseMonotonicNanoseconds()
        open.withLock { launch in
            guard var current = launch, now - current.startedAt < Int64(Self.windowSeconds) * 1_000_000_000 else { return }
            current.missingCount += 1
            if current.missingPaths.count < LaunchProblem.pathLimit { current.missingPaths.append(path) }
            launch = current
        }
    }

    /// The host's report of a failure of the launch under way; false when none is under way.
    func hostReported(_ detail: String) -> Bool {
        open.withLock { launch in
            guard launch != nil else { return false }
            launch?.hostProblem = LaunchProblem(reason: .host, detail: detail)
            return true
        }
    }

    /// Ends the launch under way, if any, now (the resolver shuts down).
    func endLaunch() {
        if let launch = open.withLock({ $0.take() }) { record(launch.problem) }
    }

    /// Ends launch `serial` when it is still the one under way (its window passed).
    private func end(serial: UInt64) {
        let ended = open.withLock { launch -> OpenLaunch? in
            guard launch?.serial == serial else { return nil }
            return launch.take()
        }
        if let ended { record(ended.problem) }
    }

    /// Adds one launch to the store's tally and settles the trial, off the request path.
    private func record(_ problem: LaunchProblem?) {
        let name = name, version = version, layout = layout, logger = logger
        Self.writer.async {
            do {
                try LaunchTally.add(problem, name: name, version: version, layout: layout)
                try PackageStore(root: layout.root).settleLaunchTrial(name, waitingForLock: false)
            } catch {
                logger.warning("launch of \(name) \(version) not recorded: \(error)")
            }
        }
    }

    /// Waits until every launch ended so far is written (tests and shutdown).
    static func drain() {
        writer.sync {}
    }
}
