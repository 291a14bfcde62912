import Foundation
import PkgCore

// Usage: ResolveBench STORE_ROOT URL [UPSTREAM_BASE CA_FILE MISS_URL]
// Prints median ns of: resolve-and-open of a local file (Resolver.answerLocally),
// the plan of a miss (Resolver.plan: classify, route, overlay lookup, upstream request; no fetch),
// with an upstream, a full miss through start/finish.
// and a local hit as a task (start → finish, the C ABI's counterpart: bench/abi.sh).
// RESOLVE_BENCH_LOCAL_ONLY=N runs only N local hits (after 1,000 warm-up hits), and
// RESOLVE_BENCH_TASK_ONLY=N only N local-hit tasks, for counting allocations under
// valgrind's DHAT (see bench/resolve.sh, bench/abi.sh).
let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: ResolveBench STORE_ROOT URL [UPSTREAM_BASE CA_FILE MISS_URL]")
    exit(2)
}
var configuration = ResolverConfiguration()
if arguments.count >= 6 {
    configuration.upstream = arguments[3]
    configuration.caFile = arguments[4]
}
let resolver = try Resolver(store: PackageStore(root: arguments[1]), configuration: configuration)
let request = ResourceRequest(url: arguments[2], headers: [("Accept", "*/*")])

func median(_ label: String, iterations: Int, _ body: () throws -> Void) rethrows {
    var samples: [UInt64] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<min(1000, iterations) { try body() }  // warm-up
    for _ in 0..<iterations {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(DispatchTime.now().uptimeNanoseconds - start)
    }
    samples.sort()
    print("\(label): median \(samples[samples.count / 2]) ns, p90 \(samples[samples.count * 9 / 10]) ns (\(iterations) runs)")
}

func localHit() throws {
    guard let answer = try resolver.answerLocally(request), answer.file != nil else { fatalError("not a local hit") }
}
/// A local hit as a task: started, its head and body delivered on the resolver's threads, finished.
func localHitTask() {
    let task = BenchTask(request)
    resolver.start(task)
    task.done.wait()
}
if let count = ProcessInfo.processInfo.environment["RESOLVE_BENCH_LOCAL_ONLY"].flatMap(Int.init) {
    for _ in 0..<(1000 + count) { try localHit() }
    exit(0)
}
if let count = ProcessInfo.processInfo.environment["RESOLVE_BENCH_TASK_ONLY"].flatMap(Int.init) {
    for _ in 0..<(1000 + count) { localHitTask() }
    exit(0)
}
try median("resolve-and-open (local hit)", iterations: 100_000, localHit)
let missRequest = ResourceRequest(url: arguments.count >= 6 ? arguments[5] : "app://unrouted.example/x.js")
try median("plan of a miss (no fetch)", iterations: 100_000) {
    _ = try resolver.plan(for: missRequest)
}
median("classify only", iterations: 100_000) {
    _ = ResourceClass.classify(accept: "text/css,*/*;q=0.1", path: "/app/css/style.css")
}
median("swift local hit (start → finish)", iterations: 100_000, localHitTask)

final class BenchTask: ResourceTask, @unchecked Sendable {
    let request: ResourceRequest
    let done = DispatchSemaphore(value: 0)
    init(_ request: ResourceRequest) { self.request = request }
    func didReceive(_ response: ResourceResponse) {}
    func didReceive(_ data: UnsafeRawBufferPointer) {}
    func didFinish() { done.signal() }
    func didFail(_ error: PkgError) { print("miss failed: \(error)"); done.signal() }
}
if arguments.count >= 6 {
    // Each miss uses a fresh query so nothing is served from the overlay or shared.
    var counter = 0
    median("miss to loopback origin (start → finish)", iterations: 500) {
        counter += 1
        let task = BenchTask(ResourceRequest(url: arguments[5] + "?n=\(counter)"))
        resolver.start(task)
        _ = task.done.wait(timeout: .now() + 10)
    }
}
resolver.shutdown()
