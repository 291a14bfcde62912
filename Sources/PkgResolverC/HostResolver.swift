import CPkgResolver
import PkgCore

/// What a `pkgctl_resolver *` is: a ``Resolver`` whose callbacks wait in a
/// ``DispatchQueueForHost``, the delivery every task gets, and the handles of the tasks the
/// host has not stopped yet (so destroy can stop them and release their handles).
final class HostResolver: Sendable {
    let resolver: Resolver
    let queue: DispatchQueueForHost
    let counters = HostCounters()
    private let delivery: TaskDelivery
    /// `options.offline`: what no package or cached answer has ends with `PKGCTL_ERR_OFFLINE`.
    let offline: Bool
    private let unstopped = PosixMutex([ObjectIdentifier: TaskHandle]())

    /// The host's `options`, at `struct_size` (``SizedStruct``): fields it leaves out are zero, their defaults.
    init(options: UnsafePointer<pkgctl_resolver_options>) throws(PkgError) {
        let options = try SizedStruct.read(options, as: pkgctl_resolver_options.self, name: "pkgctl_resolver_options",
                                           minimum: Self.optionsSizeOfABI0)
        guard let root = options.store_root.map({ String(cString: $0) }), !root.isEmpty else {
            throw PkgError(.invalidArgument, "options.store_root is required")
        }
        var configuration = ResolverConfiguration()
        configuration.upstream = options.upstream.map { String(cString: $0) }
        configuration.caFile = options.ca_file.map { String(cString: $0) }
        let resolver: Resolver
        do {
            resolver = try Resolver(store: PackageStore(root: root), configuration: configuration)
        } catch let error as PkgError {
            throw error
        } catch {
            throw PkgError(.fileSystem, "\(error)")
        }
        self.resolver = resolver
        queue = try DispatchQueueForHost()
        offline = options.offline != 0
        delivery = .on(queue, window: options.window == 0 ? TaskDelivery.defaultWindow : Int(clamping: options.window),
                       consumption: options.explicit_consumption != 0 ? .explicit : .onReturn)
    }

    /// The bytes of `pkgctl_resolver_options` in ABI 0 (up to and with `window`): the least
    /// `struct_size` taken. Fields added later are past it.
    static let optionsSizeOfABI0 = MemoryLayout<pkgctl_resolver_options>.offset(of: \.window)! + MemoryLayout<UInt64>.size

    /// Starts the task of `handle`; offline, a request no package or cached answer holds ends at the next dispatch.
    func start(_ handle: TaskHandle) {
        let task = handle.task
        counters.add(started: 1)
        unstopped.withLock { $0[ObjectIdentifier(handle)] = handle }
        if offline, plan(for: task.request).source == Int32(PKGCTL_SOURCE_OFFLINE.rawValue) {
            resolver.answeredOffline(task.request)
            let message = ResolutionPlan.offlineMiss(url: task.request.url)
            queue.execute { task.end(PKGCTL_ERR_OFFLINE, message: message) }
            return
        }
        resolver.start(task, delivery: delivery)
    }

    /// The host is done with `handle`: stops its task unless it ended, and forgets it.
    func stop(_ handle: TaskHandle) {
        unstopped.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(handle)) }
        handle.task.stop(in: resolver)
    }

    /// Stops what the host left running and releases those handles (they are invalid from now
    /// on), shuts the resolver down and closes the queue.
    func destroy() {
        let left = unstopped.withLock { handles -> [TaskHandle] in
            defer { handles = [:] }
            return Array(handles.values)
        }
        for handle in left {
            handle.task.stop(in: resolver)
            Unmanaged.passUnretained(handle).release()  // the host's retain from pkgctl_task_start
        }
        resolver.shutdown()
        queue.close()
    }
}
