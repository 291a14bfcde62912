import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension WebEngineSuites {
    /// `<video>` on `app://` in Chromium (Qt WebEngine 6.4, `Examples/HybridAppQt`): no media
    /// plugin, Chromium's media requests come to the scheme handler with their `Range`. The page
    /// of `HybridAppMediaTests` seeks the 19 MB WebM to 18 s of 20 from a package and from the
    /// origin; the resolver answers every range with a 206 and Qt, which answers a Range itself,
    /// reads only the part from the host's device, so far less than the file crosses the scheme.
    @Suite(.serialized, .enabled(if: MediaFixture.qtApp != nil, "needs HYBRID_APP_QT and a display (scripts/test)"))
    struct HybridAppQtMediaTests {
        let sandbox: ResolveSandbox
        let video: String
        let size: Int

        init() throws {
            (sandbox, video, size) = try MediaFixture.installedWithPages(page: HybridAppMediaTests.page,
                                                                         seekStorm: HybridAppMediaTests.seekStorm)
        }

        func run(origin: ResolverOrigin? = nil, page: String = "index.html") throws -> HybridAppProcess.Result {
            var arguments = ["--root", sandbox.root, "--dump-dom", "--wait-for", HybridAppPages.waitForDone, "--timeout", "90"]
            arguments += origin.map { ["--upstream", $0.baseURL, "--ca-file", $0.caFile] } ?? ["--offline"]
            return try HybridAppProcess.run(try #require(MediaFixture.qtApp), arguments + ["app://www.example.com/app/" + page])
        }

        @Test func aVideoInThePackageSeeksToNearItsEndReadingOnlyRanges() throws {
            try FileManager.default.copyItem(atPath: video, toPath: sandbox.root + "/packages/media/1.0.0/big.webm")
            let run = try run()
            #expect(run.status == 0, "\(run.log)")
            try Self.expectSeekedWithRanges(stdout: run.stdout, log: run.log, size: size)
        }

        /// Seeks replacing seeks while the video plays: Chromium drops ranged requests mid-read and
        /// starts others; the last seek still lands, every answer is a 206, and no request failed.
        @Test func seeksReplacingSeeksWhilePlayingEndOnTheLastOne() throws {
            try FileManager.default.copyItem(atPath: video, toPath: sandbox.root + "/packages/media/1.0.0/big.webm")
            let run = try run(page: "storm.html")
            #expect(run.status == 0, "\(run.log)")
            #expect(run.stdout.contains("seeked=17.0 w=\(MediaFixture.width)"), "\(run.stdout)")
            let requests = ChromiumMediaRequest.parse(run.log)
            #expect(requests.contains { $0.status == 206 } && requests.allSatisfy { $0.status == 206 || $0.status == 0 }, "\(requests)")
            #expect(!run.log.contains { $0.contains("/big.webm ") && $0.contains("failed") }, "\(run.log)")
            #expect(run.exitLine.contains(" late=0 live=0 "), "\(run.exitLine)")
        }

        /// The package lacks the video: the ranges go on to the origin, whose 206s come back.
        @Test func aVideoFromTheOriginSeeksWithRangedRequests() throws {
            let originRoot = try TemporaryDirectory(prefix: "pkgctl-qtmedia-origin")
            try FileManager.default.createDirectory(atPath: originRoot.path + "/app", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: video, toPath: originRoot.path + "/app/big.webm")
            let origin = try ResolverOrigin(root: originRoot.path)
            defer { origin.stop() }
            let run = try run(origin: origin)
            #expect(run.status == 0, "\(run.log)")
            try Self.expectSeekedWithRanges(stdout: run.stdout, log: run.log, size: size)
            let statuses = origin.accessLog().filter { $0.hasPrefix("GET /app/big.webm ") }.map { $0.split(separator: " ")[2] }
            #expect(statuses.contains("206") && statuses.allSatisfy { $0 == "206" || $0 == "499" }, "\(origin.accessLog())")
        }

        /// The seek landed at 18 s on a decoded frame; every request carried a `Range` and got a
        /// resolver 206 (or was stopped before its head); the requests for the seek (from the last
        /// quarter of the file) brought under a quarter of the file, and everything that crossed the
        /// scheme is less than the file. Stripping `Range` and dropping the bytes before the first
        /// one (the hosts before) made the seek's request alone bring the whole file (19.3 MB), so
        /// both bounds fail then. The total has no tighter bound: Chromium keeps reading its first
        /// request (`bytes=0-`, `preload="auto"`) while it seeks, until the page drops the source;
        /// measured 1 to 12 MB of it, so 3.5 to 14 MB crossed in all (18 to 73 %).
        static func expectSeekedWithRanges(stdout: String, log: [String], size: Int) throws {
            let verdict = try #require(stdout.firstMatch(of: /seeked=([0-9.]+) w=([0-9]+)/), "\(stdout)")
            #expect(abs((Double(verdict.1) ?? 0) - 18) < 0.5 && Int(verdict.2) == MediaFixture.width, "\(verdict.0)")
            let requests = ChromiumMediaRequest.parse(log)
            #expect(requests.contains { $0.status == 206 } && requests.allSatisfy { !$0.range.isEmpty }
                    && requests.allSatisfy { $0.status == 206 || ($0.status == 0 && $0.delivered == 0) }, "\(requests)")
            let seek = requests.filter { ($0.first ?? 0) > size * 3 / 4 }
            let seekCrossed = seek.reduce(0) { $0 + $1.delivered }
            #expect(seekCrossed > 0 && seekCrossed < size / 4, "the seek's requests brought \(seekCrossed) of \(size) bytes: \(requests)")
            let crossed = requests.reduce(0) { $0 + $1.delivered }
            #expect(crossed < size, "\(crossed) of \(size) bytes crossed: \(requests)")
        }
    }
}
