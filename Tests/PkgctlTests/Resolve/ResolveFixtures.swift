import Foundation
import Synchronization
@testable import PkgCore
@testable import PkgPublishing

/// A store root under /tmp with packages laid out the way `install` + `activate`
/// leave them: `packages/NAME/VERSION/...`, `current` symlinks, version records.
final class ResolveSandbox: @unchecked Sendable {
    let root: String
    var store: PackageStore { PackageStore(root: root) }

    init() throws {
        var template = Array("/tmp/pkgctl-resolve.XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PkgError(.fileSystem, "mkdtemp failed")
        }
        root = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Writes `files` (relative path → content) as version `version` of `name` and makes it current.
    func install(_ name: String, _ version: String, routes: [String], files: [String: [UInt8]],
                 spaFallback: String? = nil, activate: Bool = true) throws {
        let directory = root + "/packages/\(name)/\(version)"
        for (path, bytes) in files {
            let file = directory + "/" + path
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: file))
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var entry: [String: Any] = ["name": name, "version": version, "url": "\(name)-\(version).zip",
                                    "sha256": String(repeating: "0", count: 64), "size": 0, "routes": routes]
        entry["spaFallback"] = spaFallback
        let record: [String: Any] = [
            "entry": entry,
            "installedAt": "2026-01-01T00:00:00Z",
            "index": ["files": [String: Any]()],
        ]
        let recordDirectory = root + "/state/packages/\(name)"
        try FileManager.default.createDirectory(atPath: recordDirectory, withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: record).write(to: URL(fileURLWithPath: recordDirectory + "/\(version).json"))
        if activate { try self.activate(name, version) }
    }

    func activate(_ name: String, _ version: String) throws {
        let link = root + "/packages/\(name)/current"
        let temporary = link + ".tmp"
        unlink(temporary)
        try FileManager.default.createSymbolicLink(atPath: temporary, withDestinationPath: version)
        guard rename(temporary, link) == 0 else { throw PkgError(.fileSystem, "rename \(temporary)") }
    }
}

/// A task that records every call, and checks the order the resolver promises.
final class RecordingTask: ResourceTask, @unchecked Sendable {
    enum Event: Equatable { case response(Int), data(Int), finish, fail(String) }

    let request: ResourceRequest
    private let lock = NSLock()
    private var _events: [Event] = []
    private var _body: [UInt8] = []
    private var _response: ResourceResponse?
    /// One clock for every task: each callback takes a tick as it begins, and
    /// `markStopped` takes one right after `stop` returns.
    private static let clock = Atomic<Int>(0)
    private var callbackTicks: [Int] = []
    private var stopTick: Int?
    private let done = DispatchSemaphore(value: 0)
    /// Called after each data chunk (e.g. to stop from inside a callback).
    var onData: (@Sendable (RecordingTask) -> Void)?
    /// Called inside every callback, before it is recorded (e.g. to see which thread it runs on).
    var onEvent: (@Sendable () -> Void)?

    init(_ request: ResourceRequest) { self.request = request }

    convenience init(_ url: String, accept: String? = nil, headers: [(name: String, value: String)] = [],
                     method: String = "GET", body: [UInt8] = []) {
        var all = headers
        if let accept { all.append(("Accept", accept)) }
        self.init(ResourceRequest(url: url, method: method, headers: all, body: body))
    }

    /// Call right after `resolver.stop(self)` returns. A callback that began later
    /// (its tick is higher) broke the promise, even if it is still waiting for this
    /// task's lock: only the one atomic increment separates the return from the tick.
    func markStopped() {
        let tick = Self.tick()
        lock.withLock { stopTick = tick }
    }

    /// Callbacks that began after `markStopped`'s tick.
    var deliveredAfterStop: Int {
        lock.withLock { stopTick.map { stop in callbackTicks.count { $0 > stop } } ?? 0 }
    }

    private static func tick() -> Int { clock.add(1, ordering: .sequentiallyConsistent).newValue }

    private func record(_ event: Event, tick: Int) {
        onEvent?()
        lock.withLock {
            callbackTicks.append(tick)
            _events.append(event)
        }
    }

    func didReceive(_ response: ResourceResponse) {
        let tick = Self.tick()
        lock.withLock { _response = response }
        record(.response(response.status), tick: tick)
    }
    func didReceive(_ data: UnsafeRawBufferPointer) {
        let tick = Self.tick()
        lock.withLock { _body.append(contentsOf: data) }
        record(.data(data.count), tick: tick)
        onData?(self)
    }
    func didFinish() { record(.finish, tick: Self.tick()); done.signal() }
    func didFail(_ error: PkgError) { record(.fail(error.code.description), tick: Self.tick()); done.signal() }

    var events: [Event] { lock.withLock { _events } }
    var body: [UInt8] { lock.withLock { _body } }
    var response: ResourceResponse? { lock.withLock { _response } }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// Waits (bounded) for the terminal call.
    @discardableResult
    func wait(seconds: Double = 10) -> Bool { done.wait(timeout: .now() + seconds) == .success }

    /// response, data*, finish|fail — or just fail.
    var isWellOrdered: Bool {
        let list = events
        guard let last = list.last else { return false }
        switch last {
        case .finish, .fail: break
        default: return false
        }
        if list.count == 1, case .fail = last { return true }
        guard case .response = list.first else { return false }
        for event in list.dropFirst().dropLast() {
            guard case .data = event else { return false }
        }
        return true
    }

    /// A prefix of the promised order, with no terminal call twice (for stopped tasks).
    var isOrderedPrefix: Bool {
        var sawResponse = false, sawEnd = false
        for event in events {
            if sawEnd { return false }
            switch event {
            case .response: if sawResponse { return false }; sawResponse = true
            case .data: if !sawResponse { return false }
            case .finish: if !sawResponse { return false }; sawEnd = true
            case .fail: sawEnd = true
            }
        }
        return true
    }
}

/// Open file descriptors of this process.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// Descriptors of this process open on regular files under `root` (not the
/// resolver's directory descriptors): robust while other suites run in parallel.
func openFiles(under root: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.compactMap { name -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name),
              target.hasPrefix(root + "/") else { return nil }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
        return target
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass, e.g. for
/// nginx, which writes its access-log line only after the client has its answer.
func eventually(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

let chromiumDocumentAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
let chromiumImageAccept = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
