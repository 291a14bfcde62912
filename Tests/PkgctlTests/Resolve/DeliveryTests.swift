import PkgCrypto
import Dispatch
import Foundation
import Synchronization
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// An executor that only queues: the test runs the closures when it chooses, on
/// its own thread, as a host's main loop would.
final class QueuedExecutor: CallbackExecutor, @unchecked Sendable {
    private let queued = PosixMutex<[@Sendable () -> Void]>([])

    func execute(_ body: @escaping @Sendable () -> Void) { queued.withLock { $0.append(body) } }

    var count: Int { queued.withLock { $0.count } }

    /// Runs what is queued now (and whatever that queues), bounded.
    func drain() {
        for _ in 0..<10_000 {
            let batch = queued.withLock { list -> [@Sendable () -> Void] in
                defer { list.removeAll() }
                return list
            }
            if batch.isEmpty { return }
            for body in batch { body() }
        }
    }
}

/// A task that takes bytes without consuming them until the test says so.
final class StallingTask: ResourceTask, @unchecked Sendable {
    let request: ResourceRequest
    private let lock = NSLock()
    private var received: [UInt8] = []
    private var consumedCount = 0
    private var ended: String?

    init(_ url: String) { request = ResourceRequest(url: url) }
    init(_ request: ResourceRequest) { self.request = request }

    func didReceive(_ response: ResourceResponse) {}
    func didReceive(_ data: UnsafeRawBufferPointer) { lock.withLock { received.append(contentsOf: data) } }
    func didFinish() { lock.withLock { ended = "finish" } }
    func didFail(_ error: PkgError) { lock.withLock { ended = "fail: \(error.message)" } }

    var receivedCount: Int { lock.withLock { received.count } }
    var outcome: String? { lock.withLock { ended } }
    var bytes: [UInt8] { lock.withLock { received } }

    /// Reports everything received so far as consumed to `resolver`.
    func consumeAll(_ resolver: Resolver) {
        let fresh = lock.withLock { () -> Int in
            defer { consumedCount = received.count }
            return received.count - consumedCount
        }
        if fresh > 0 { resolver.consumed(fresh, by: self) }
    }
}

@Suite(.serialized) struct DeliveryTests {
    static let window = 256 * 1024
    static let large = [UInt8].filled(count: 12 << 20) { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 13)) }
    let sandbox: ResolveSandbox
    let originRoot: TemporaryDirectory
    let origin: ResolverOrigin
    let resolver: Resolver

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"],
                            files: ["index.html": Array("<p>local</p>".utf8), "local.bin": Self.large])
        originRoot = try TemporaryDirectory(prefix: "pkgctl-origin")
        _ = try originRoot.write(Self.large, to: "app/large.js")
        origin = try ResolverOrigin(root: originRoot.path)
        resolver = try Resolver(store: sandbox.store,
                                configuration: ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile))
    }

    /// Consumes in steps until the task ends (bounded), the way a reader that keeps up does.
    func consumeUntilEnded(_ task: StallingTask, with resolver: Resolver? = nil) -> Bool {
        eventually(seconds: 60) {
            task.consumeAll(resolver ?? self.resolver)
            return task.outcome != nil
        }
    }

    @Test func aConsumerThatStallsPausesTheOriginTransferAndGetsEveryByteWhenItReads() throws {
        let task = StallingTask("app://www.example.com/app/large.js")
        resolver.start(task, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(eventually { task.receivedCount >= Self.window })
        Thread.sleep(forTimeInterval: 1)
        // Without the pause the whole 12 MiB would be here by now (the origin is loopback).
        #expect(task.receivedCount <= Self.window + 64 * 1024, "buffered \(task.receivedCount) bytes")
        #expect(resolver.upstreamTransfersInFlight == 1)
        #expect(consumeUntilEnded(task))
        #expect(task.outcome == "finish")
        #expect(SHA256.hash(data: task.bytes) == SHA256.hash(data: Self.large))
        // The paced answer was still written through whole.
        #expect(eventually { resolver.upstreamTransfersInFlight == 0 })
        let cached = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/large.js"
        #expect(FileManager.default.contents(atPath: cached) == Data(Self.large))
    }

    @Test func aPausedWriteThroughWhoseReaderLeavesEndsWithAWholeCacheEntry() throws {
        let task = StallingTask("app://www.example.com/app/large.js")
        resolver.start(task, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(eventually { task.receivedCount >= Self.window })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(task.receivedCount <= Self.window + 64 * 1024, "paused before the reader leaves")
        resolver.stop(task)
        #expect(eventually(seconds: 30) { resolver.upstreamTransfersInFlight == 0 }, "the transfer resumed for the overlay")
        let cached = sandbox.store.layout.overlay + "/app@1.0.0/www.example.com/app/large.js"
        #expect(FileManager.default.contents(atPath: cached) == Data(Self.large))
        #expect(task.outcome == nil, "a stopped task hears nothing")
    }

    @Test func aSharedFetchGoesAtItsSlowestReadersPaceUntilThatReaderLeaves() throws {
        let stalled = StallingTask("app://www.example.com/app/large.js")
        let reading = StallingTask("app://www.example.com/app/large.js")
        resolver.start(stalled, delivery: .direct(window: Self.window, consumption: .explicit))
        resolver.start(reading, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(resolver.upstreamTransfersInFlight == 1, "the two misses share one fetch")
        #expect(eventually { stalled.receivedCount >= Self.window })
        // The reader keeps up, but the fetch waits for the stalled one.
        #expect(!eventually(seconds: 1) {
            reading.consumeAll(resolver)
            return reading.receivedCount > Self.window + 64 * 1024
        })
        resolver.stop(stalled)
        #expect(consumeUntilEnded(reading))
        #expect(reading.outcome == "finish")
        #expect(reading.bytes == Self.large)
    }

    @Test func aReaderStalledPastTheLimitIsDroppedAndTheSharedFetchGoesOn() throws {
        var configuration = ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile)
        configuration.stalledReaderSeconds = 1
        let resolver = try Resolver(store: sandbox.store, configuration: configuration)
        let stalled = StallingTask("app://www.example.com/app/large.js")
        let reading = StallingTask("app://www.example.com/app/large.js")
        resolver.start(stalled, delivery: .direct(window: Self.window, consumption: .explicit))
        resolver.start(reading, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(resolver.upstreamTransfersInFlight == 1, "the two misses share one fetch")
        #expect(consumeUntilEnded(reading, with: resolver))
        #expect(reading.outcome == "finish")
        #expect(reading.bytes == Self.large)
        let outcome = try #require(stalled.outcome)
        #expect(outcome.hasPrefix("fail: ") && outcome.contains("made no room for 1 s"), "\(outcome)")
        #expect(stalled.receivedCount <= Self.window + 64 * 1024)
    }

    @Test func aLoneStalledReaderIsNotDropped() throws {
        var configuration = ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile)
        configuration.stalledReaderSeconds = 0.5
        let resolver = try Resolver(store: sandbox.store, configuration: configuration)
        // A ranged request is neither shared nor written through: its pause holds back no one else.
        let task = StallingTask(ResourceRequest(url: "app://www.example.com/app/large.js", headers: [("Range", "bytes=0-")]))
        resolver.start(task, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(eventually { task.receivedCount >= Self.window })
        Thread.sleep(forTimeInterval: 1.5)
        #expect(task.outcome == nil, "\(task.outcome ?? "")")
        #expect(consumeUntilEnded(task, with: resolver))
        #expect(task.outcome == "finish")
    }

    @Test func aConsumerThatStallsHoldsBackLocalReads() throws {
        let task = StallingTask("app://www.example.com/app/local.bin")
        resolver.start(task, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(eventually { task.receivedCount >= Self.window })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(task.receivedCount <= Self.window + resolver.configuration.chunkSize)
        #expect(consumeUntilEnded(task))
        #expect(task.outcome == "finish")
        #expect(task.bytes == Self.large)
    }

    /// A host that reports more than it was given (the C ABI's `size_t` up to `SIZE_MAX` arrives
    /// clamped to `Int.max`) frees the whole window, and a negative count frees nothing; neither
    /// traps (found by the resolver-abi fuzz target: `unconsumed - Int.min` overflowed).
    @Test func consumingMoreThanWasDeliveredFreesTheWindowAndANegativeCountNothing() throws {
        let task = StallingTask("app://www.example.com/app/local.bin")
        resolver.start(task, delivery: .direct(window: Self.window, consumption: .explicit))
        #expect(eventually { task.receivedCount >= Self.window })
        resolver.consumed(Int.min, by: task)
        resolver.consumed(-1, by: task)
        Thread.sleep(forTimeInterval: 0.3)
        let held = task.receivedCount
        #expect(held <= Self.window + resolver.configuration.chunkSize, "a negative count freed bytes: \(held)")
        resolver.consumed(Int.max, by: task)
        #expect(eventually { task.receivedCount > held }, "Int.max did not free the window")
        #expect(consumeUntilEnded(task))
        #expect(task.bytes == Self.large)
    }

    @Test func callbacksRunOnTheChosenExecutor() throws {
        let queue = DispatchQueue(label: "host")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        for url in ["app://www.example.com/app/index.html", "app://www.example.com/app/large.js"] {
            let task = RecordingTask(url)
            let offQueue = Atomic<Int>(0)
            task.onEvent = { if DispatchQueue.getSpecific(key: key) != true { offQueue.add(1, ordering: .relaxed) } }
            resolver.start(task, delivery: .on(queue))
            #expect(task.wait(seconds: 30))
            #expect(task.isWellOrdered)
            #expect(offQueue.load(ordering: .relaxed) == 0)
            #expect(task.body.count > 0)
        }
    }

    @Test func aStopOnTheHostThreadSilencesCallbacksAlreadyQueued() throws {
        let executor = QueuedExecutor()
        let task = RecordingTask("app://www.example.com/app/index.html")
        resolver.start(task, delivery: .on(executor))
        // The source has finished: response, data and finish all wait on the host's queue.
        #expect(eventually { executor.count == 3 })
        #expect(resolver.activeTaskCount == 1, "the task stays until its last callback ran")
        resolver.stop(task)
        task.markStopped()
        executor.drain()
        #expect(task.events.isEmpty)
        #expect(resolver.activeTaskCount == 0)

        let unstopped = RecordingTask("app://www.example.com/app/index.html")
        resolver.start(unstopped, delivery: .on(executor))
        #expect(eventually { executor.count == 3 })
        executor.drain()
        #expect(unstopped.isWellOrdered)
        #expect(unstopped.text == "<p>local</p>")
        #expect(resolver.activeTaskCount == 0)
    }
}
