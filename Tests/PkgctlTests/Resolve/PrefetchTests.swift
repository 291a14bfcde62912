import Foundation
import Synchronization
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// `Resolver.prefetch`: origin resources fetched into the overlay ahead of use, through the
/// resolver's normal path, against a real nginx origin (the request counts are its access log).
@Suite(.serialized) struct PrefetchTests {
    let sandbox: ResolveSandbox
    let originRoot: TemporaryDirectory
    let origin: ResolverOrigin
    let resolver: Resolver

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: ["index.html": Array("local".utf8)])
        originRoot = try TemporaryDirectory(prefix: "pkgctl-prefetch-origin")
        for name in ["app/a.js", "app/b.js", "app/page.html", "app/img/a.png", "app/font.woff2", "app/style.css"] {
            _ = try originRoot.write(Array("origin \(name)\n".utf8), to: name)
        }
        for number in 0..<12 {
            _ = try originRoot.write([UInt8](repeating: UInt8(number), count: 80 * 1024), to: "f\(number).js")
        }
        origin = try ResolverOrigin(root: originRoot.path)
        resolver = try Resolver(store: sandbox.store,
                                configuration: ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile))
    }

    func run(_ url: String, on resolver: Resolver) -> RecordingTask {
        let task = RecordingTask(url)
        resolver.start(task)
        #expect(task.wait(seconds: 20))
        return task
    }

    @Test func prefetchedResourcesAreAnsweredFromTheOverlayOnceTheOriginIsGone() throws {
        let urls = ["app://www.example.com/app/a.js", "app://www.example.com/app/page.html",
                    "app://www.example.com/app/img/a.png", "app://www.example.com/app/style.css"]
        var progress: [PrefetchProgress] = []  // called on this thread
        let results = resolver.prefetch(urls) { progress.append($0) }
        #expect(results.map(\.url) == urls)
        #expect(results.map(\.outcome) == [.kept, .kept, .kept, .kept], "\(results.map(\.outcome))")
        #expect(results.map(\.bytes) == urls.map { Int64("origin \($0.dropFirst("app://www.example.com/".count))\n".utf8.count) })
        #expect(progress.map(\.done) == [1, 2, 3, 4])
        #expect(progress.allSatisfy { $0.total == 4 })
        #expect(progress.last?.bytes == results.map(\.bytes).reduce(0, +))
        // The image went in although this resolver does not write images through.
        #expect(!resolver.configuration.writeThroughImages)

        origin.stop()
        let offline = try Resolver(store: sandbox.store,
                                   configuration: ResolverConfiguration(upstream: origin.baseURL, caFile: origin.caFile))
        for url in urls {
            let task = run(url, on: offline)
            #expect(task.response?.status == 200, "\(url)")
            #expect(task.text == "origin \(url.dropFirst("app://www.example.com/".count))\n")
            #expect(try offline.plan(for: ResourceRequest(url: url)).fromOverlay, "\(url)")
        }
        // What was not prefetched cannot be answered without the origin.
        let missed = run("app://www.example.com/app/b.js", on: offline)
        #expect(missed.events.last == .fail(PkgError.Code.transferFailed.description))
    }

    @Test func packageFilesAndFreshOverlayEntriesCostNoOriginRequest() throws {
        let urls = ["app://www.example.com/app/index.html", "app://www.example.com/app/a.js",
                    "app://www.example.com/app/", "app://www.example.com/app/img/a.png"]
        let first = resolver.prefetch(urls)
        #expect(first.map(\.outcome) == [.inPackage(name: "app", version: "1.0.0"), .kept,
                                         .inPackage(name: "app", version: "1.0.0"), .kept])
        let second = resolver.prefetch(urls)
        #expect(second.map(\.outcome) == [.inPackage(name: "app", version: "1.0.0"), .inOverlay,
                                          .inPackage(name: "app", version: "1.0.0"), .inOverlay])
        #expect(second.allSatisfy { $0.outcome.costNothing && $0.bytes == 0 })
        #expect(origin.requests(to: "/app/a.js") == 1)
        #expect(origin.requests(to: "/app/img/a.png") == 1)
        #expect(origin.requests(to: "/app/index.html") == 0)
        #expect(origin.requests(to: "/app/") == 0)
    }

    @Test func atMostTheGivenNumberOfURLsAreFetchedAtOnce() throws {
        // 80 KiB under nginx's limit_rate 64k (64 KiB in a transfer's first second, 64 KiB more
        // each second after): each fetch lasts most of a second, so three at a time take four rounds.
        let urls = (0..<12).map { "app://cdn.example.org/slow/f\($0).js" }
        let peak = Atomic<Int>(0)
        let sampling = Atomic<Bool>(true)
        let sampler = Thread {
            while sampling.load(ordering: .relaxed) {
                peak.max(self.resolver.activeTaskCount, ordering: .relaxed)
                usleep(2_000)
            }
        }
        sampler.start()
        let started = Date()
        let results = resolver.prefetch(urls, concurrency: 3)
        let elapsed = Date().timeIntervalSince(started)
        sampling.store(false, ordering: .relaxed)
        #expect(results.allSatisfy { $0.outcome == .kept }, "\(results.map(\.outcome))")
        // A task leaves the resolver's table just after its last callback, which is when the next URL
        // starts: a sample may catch that instant (seen under load), and count one more.
        #expect((3...4).contains(peak.load(ordering: .relaxed)), "\(peak.load(ordering: .relaxed))")
        #expect(elapsed > 2.5, "twelve fetches of most of a second each take rounds, not one: \(elapsed) s")
        // nginx logs a request once it has sent the answer: the last line may come a moment later.
        #expect(eventually { urls.indices.allSatisfy { origin.requests(to: "/slow/f\($0).js") == 1 } })
    }

    @Test func aFailedURLIsReportedAndTheOthersStillComplete() throws {
        let urls = ["app://www.example.com/always-500/x.js", "app://www.example.com/app/a.js",
                    "app://www.example.com/app/missing.js", "app://www.example.com/app/%2e%2e/x.js",
                    "www.example.com/app/a.js", "app://user:secret@www.example.com/app/a.js"]
        let results = resolver.prefetch(urls)
        guard case .failed(let serverError) = results[0].outcome else { Issue.record("\(results[0])"); return }
        #expect(serverError.httpStatus == 500)
        #expect(serverError.message == "app://www.example.com/always-500/x.js: the origin answered 500")
        #expect(results[1].outcome == .kept)
        guard case .failed(let notFound) = results[2].outcome else { Issue.record("\(results[2])"); return }
        #expect(notFound.httpStatus == 404)
        for refused in results[3...] {
            guard case .failed(let error) = refused.outcome else { Issue.record("\(refused)"); continue }
            #expect(error.code == .invalidArgument)
            #expect(error.message.hasPrefix("URL '\(refused.url)' "), "\(error.message)")
        }
        #expect(eventually { origin.requests(to: "/app/a.js") == 1 })
    }

    @Test func whatIsFetchedButNotKeptSaysWhy() throws {
        let results = resolver.prefetch(["app://www.example.com/no-store/app/a.js", "app://www.example.com/app/a.js?v=2",
                                         "app://www.example.com/app/font.woff2",
                                         "app://www.example.com/set-cookie/app/b.js"])
        #expect(results.map(\.outcome) == [.notKept(.answer("Cache-Control: no-store")), .notKept(.query),
                                           .notKept(.resourceClass(.other)), .notKept(.answer("Set-Cookie"))])
        #expect(results.allSatisfy { $0.bytes > 0 })
        let credentials = resolver.prefetch(["app://www.example.com/app/b.js"], headers: [("Authorization", "Bearer x")])
        #expect(credentials.map(\.outcome) == [.notKept(.credentials)])
    }

    /// The list travels in a signed manifest (its key is in the strict schema) and the updater
    /// prefetches it once the release is active.
    @Test func aSignedReleasesListIsPrefetchedByTheUpdaterAfterActivation() throws {
        let temp = try TemporaryDirectory()
        let fixtures = SigningFixtures(in: temp.path)
        try fixtures.makeKey("release")
        try BundleFixtures.makeTree(at: temp.path("src"), files: 2, size: 100)
        let urls = ["app://www.example.com/app/img/a.png", "app://www.example.com/app/a.js"]
        try PublishingFolder(temp.path("out")).pack(source: temp.path("src"), name: "site", version: "1", options: .init(routes: ["www.example.com/app"], prefetch: urls),
                                                                 signer: try fixtures.signer("release"))
        let store = PackageStore(root: temp.path("store"))
        let prefetched = PosixMutex<[(name: String, version: String, results: [PrefetchResult])]>([])
        let updater = Updater(store: store, manifestURL: "file://" + temp.path("out") + "/manifest.json",
                              trust: try fixtures.policy("release"),
                              prefetch: UpdatePrefetch(resolver: ResolverConfiguration(upstream: origin.baseURL,
                                                                                       caFile: origin.caFile)))
        let report = try updater.run(progress: { event in
            if case .prefetched(let name, let version, let results) = event {
                prefetched.withLock { $0.append((name, version, results)) }
            }
        })
        #expect(report.succeeded)
        let only = try #require(prefetched.withLock { $0 }.first)
        #expect(only.name == "site" && only.version == "1")
        #expect(only.results.map(\.outcome) == [.kept, .kept])
        #expect(FileManager.default.fileExists(atPath: store.layout.overlay + "/site@1/www.example.com/app/img/a.png"))
    }

    @Test func theTimeLimitStopsWhatIsStillRunningAndFailsTheRest() throws {
        _ = try originRoot.write([UInt8](repeating: 7, count: 512 * 1024), to: "big.js")
        let started = Date()
        let results = resolver.prefetch(["app://cdn.example.org/slow/big.js", "app://cdn.example.org/slow/f1.js"],
                                        concurrency: 1, timeLimit: 0.5)
        #expect(Date().timeIntervalSince(started) < 5)
        for result in results {
            guard case .failed(let error) = result.outcome else { Issue.record("\(result)"); continue }
            #expect(error.code == .deadlineExceeded)
        }
        #expect(results[0].bytes > 0)
        #expect(origin.requests(to: "/slow/f1.js") == 0)
        #expect(eventually { resolver.activeTaskCount == 0 })
    }
}
