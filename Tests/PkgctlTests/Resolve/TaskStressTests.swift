import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

@Suite(.serialized) struct TaskStressTests {
    @Test func tenThousandTasksWithRandomStops() throws {
        let sandbox = try ResolveSandbox()
        let big = [UInt8](repeating: 7, count: 200_000)
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: [
            "index.html": Array("local".utf8), "big.bin": big, "css/a.css": Array("body{}".utf8),
        ])
        let originRoot = try TemporaryDirectory(prefix: "pkgctl-stress-origin")
        _ = try originRoot.write(Array("small origin file\n".utf8), to: "lib.js")
        _ = try originRoot.write([UInt8](repeating: 1, count: 100_000), to: "big.js")
        let origin = try ResolverOrigin(root: originRoot.path, slowRate: "200k")
        let resolver = try Resolver(store: sandbox.store,
                                    configuration: ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile))
        let count = 10_000
        var generator = SystemRandomNumberGenerator()
        var tasks: [RecordingTask] = []
        var stopped = Set<Int>()
        tasks.reserveCapacity(count)
        let group = DispatchGroup()
        for index in 0..<count {
            let roll = Int.random(in: 0..<100, using: &generator)
            let url: String
            switch roll {
            case 0..<40: url = "app://www.example.com/app/index.html"
            case 40..<60: url = "app://www.example.com/app/big.bin"
            case 60..<70: url = "app://www.example.com/app/css/a.css"
            case 70..<95: url = "app://cdn.example.org/lib.js?n=\(index % 200)"
            default: url = "app://cdn.example.org/slow/big.js?n=\(index % 10)"
            }
            let task = RecordingTask(url, accept: "*/*")
            tasks.append(task)
            resolver.start(task)
            if Bool.random(using: &generator) {
                stopped.insert(index)
                let delay = Int.random(in: 0..<3_000, using: &generator)
                group.enter()
                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(delay)) {
                    resolver.stop(task)
                    task.markStopped()
                    group.leave()
                }
            }
        }
        #expect(group.wait(timeout: .now() + 20) == .success)
        for (index, task) in tasks.enumerated() where !stopped.contains(index) {
            #expect(task.wait(seconds: 25), "task \(index) \(task.request.url) never ended")
            #expect(task.isWellOrdered, "task \(index): \(task.events.prefix(4))")
            if task.events.last == .finish, task.request.url.hasSuffix("big.bin") { #expect(task.body.count == big.count) }
        }
        for task in tasks {
            #expect(task.deliveredAfterStop == 0)
            #expect(task.isOrderedPrefix)
        }
        #expect(eventually(seconds: 20) { resolver.upstreamTransfersInFlight == 0 })
        #expect(resolver.activeTaskCount == 0)
        #expect(eventually(seconds: 5) { openFiles(under: sandbox.root).isEmpty })
        let failed = tasks.enumerated().filter { !stopped.contains($0.offset) && $0.element.events.last != .finish }
        #expect(failed.isEmpty, "\(failed.count) live tasks failed, e.g. \(failed.first.map { $0.element.events.suffix(1) } ?? [])")
        resolver.shutdown()
        origin.stop()
    }
}
