import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension WebEngineSuites {
    /// `<video>` on `app://` in WebKitGTK through the GStreamer source `pkgctlsrc`
    /// (Examples/gst-pkgctl, the folder named by `GST_PKGCTL_PLUGIN`, passed to the app as
    /// `--media-plugin`): a 19 MB WebM seeks to 18 s of 20 from a package and from the origin,
    /// with ranged reads only, far less than the file crossing the scheme, and nothing written through.
    @Suite(.serialized, .enabled(if: !MediaFixture.apps.isEmpty && MediaFixture.plugin != nil,
                                 "needs HYBRID_APP, HYBRID_APP_C or HYBRID_APP_GTK_PYTHON, GST_PKGCTL_PLUGIN and a display (scripts/test)"))
    struct HybridAppMediaTests {
        /// On its metadata the video seeks to 18 s; on `seeked` the page writes `seeked=TIME w=WIDTH`
        /// (or `error=CODE`), then drops its source, so the element stops and logs its last request.
        static let page = """
            <!doctype html><html><body><p id="out">waiting</p>
            <video id="v" src="big.webm" preload="auto" muted></video><script>
            const v = document.getElementById('v'), out = document.getElementById('out');
            let finished = false;
            function finish(text) {
              if (finished) return;
              finished = true;
              out.textContent = text;
              v.removeAttribute('src');
              v.load();
              setTimeout(() => { document.body.dataset.done = '1'; }, 500);
            }
            v.addEventListener('loadedmetadata', () => { v.currentTime = 18; }, { once: true });
            v.addEventListener('seeked', () => finish('seeked=' + v.currentTime.toFixed(1) + ' w=' + v.videoWidth));
            v.addEventListener('error', () => finish('error=' + (v.error ? v.error.code : '?')));
            </script></body></html>
            """

        /// While playing, 40 seeks 15 ms apart (most replaced before they land, so the element is
        /// flushed in the middle of its waits), then one to 17 s, whose `seeked` the page reports.
        static let seekStorm = """
            <!doctype html><html><body><p id="out">waiting</p>
            <video id="v" src="big.webm" preload="auto" muted></video><script>
            const v = document.getElementById('v'), out = document.getElementById('out');
            let count = 0;
            function finish(text) { out.textContent = text; v.removeAttribute('src'); v.load();
                                    setTimeout(() => { document.body.dataset.done = '1'; }, 500); }
            v.addEventListener('loadedmetadata', () => {
              v.play();
              const timer = setInterval(() => {
                v.currentTime = (count * 7.3) % 19.5;
                if (++count < 40) return;
                clearInterval(timer);
                v.addEventListener('seeked', () => finish('seeked=' + v.currentTime.toFixed(1) + ' w=' + v.videoWidth), { once: true });
                v.currentTime = 17;
              }, 15);
            }, { once: true });
            v.addEventListener('error', () => finish('error=' + (v.error ? v.error.code : '?')), { once: true });
            </script></body></html>
            """

        /// One `pkgctl-media:` line of the element (`GET URL bytes=FIRST-LAST STATUS delivered=N how`):
        /// a request from byte `first`, its status and the body bytes it delivered.
        struct MediaRequest {
            var first: Int
            var status: Int
            var delivered: Int

            static func parse(_ log: [String]) -> [MediaRequest] {
                log.filter { $0.hasPrefix("pkgctl-media: GET ") && $0.contains("/big.webm ") }.compactMap { line in
                    let fields = line.split(separator: " ")
                    guard fields.count >= 6, fields[3].hasPrefix("bytes="), fields[5].hasPrefix("delivered="),
                          let first = fields[3].dropFirst(6).split(separator: "-").first.flatMap({ Int($0) }),
                          let status = Int(fields[4]),
                          let delivered = Int(fields[5].dropFirst(10)) else { return nil }
                    return MediaRequest(first: first, status: status, delivered: delivered)
                }
            }
        }

        let sandbox: ResolveSandbox
        let video: String
        let size: Int

        init() throws {
            (sandbox, video, size) = try MediaFixture.installedWithPages(page: Self.page, seekStorm: Self.seekStorm)
        }

        func run(_ app: HybridApp, origin: ResolverOrigin? = nil, page: String = "index.html",
                 scheme: String = "app") throws -> HybridAppProcess.Result {
            var arguments = ["--root", sandbox.root, "--media-plugin", try #require(MediaFixture.plugin), "--dump-dom",
                             "--wait-for", HybridAppPages.waitForDone, "--timeout", "90", "--scheme", scheme]
            arguments += origin.map { ["--upstream", $0.baseURL, "--ca-file", $0.caFile] } ?? ["--offline"]
            return try HybridAppProcess.run(app, arguments + ["\(scheme)://www.example.com/app/" + page])
        }

        /// The seek landed at 18 s on a decoded frame, the requests were 206s, and what crossed the
        /// scheme is a small part of the file, one request of it far into the file.
        func expectSeekedWithRanges(_ run: HybridAppProcess.Result) throws -> [MediaRequest] {
            #expect(run.status == 0, "\(run.log)")
            let verdict = try #require(run.stdout.firstMatch(of: /seeked=([0-9.]+) w=([0-9]+)/), "\(run.stdout)")
            #expect(abs((Double(verdict.1) ?? 0) - 18) < 0.5 && Int(verdict.2) == MediaFixture.width, "\(verdict.0)")
            let requests = MediaRequest.parse(run.log)
            // Every request is a 206, or was replaced before its head came (status 0, nothing delivered).
            #expect(requests.contains { $0.status == 206 }
                    && requests.allSatisfy { $0.status == 206 || ($0.status == 0 && $0.delivered == 0) }, "\(run.log)")
            let crossed = requests.reduce(0) { $0 + $1.delivered }
            #expect(crossed > 0 && crossed < size / 4, "\(crossed) of \(size) bytes crossed: \(requests)")
            #expect(requests.contains { $0.first > size * 3 / 4 && $0.delivered > 0 }, "no read far into the file: \(requests)")
            return requests
        }

        @Test(arguments: MediaFixture.apps) func aVideoInThePackageSeeksToNearItsEndReadingOnlyRanges(app: HybridApp) throws {
            try FileManager.default.copyItem(atPath: video, toPath: sandbox.root + "/packages/media/1.0.0/big.webm")
            let run = try run(app)
            _ = try expectSeekedWithRanges(run)
        }

        /// A host on another scheme plays its video through the same element: the host names its
        /// scheme in `PKGCTL_MEDIA_SCHEMES`, on which the plugin declares a dependency, so GStreamer's
        /// registry reads the element's protocols again (the other tests left `app` there).
        @Test(arguments: MediaFixture.apps) func aHostOnAnotherSchemePlaysItsVideoThroughTheSameElement(app: HybridApp) throws {
            try FileManager.default.copyItem(atPath: video, toPath: sandbox.root + "/packages/media/1.0.0/big.webm")
            let run = try run(app, scheme: "pkgapp")
            _ = try expectSeekedWithRanges(run)
            #expect(run.log.contains { $0.hasPrefix("pkgctl-media: GET pkgapp://www.example.com/app/big.webm ") }, "\(run.log)")
        }

        /// Seeks replacing seeks while the video plays stop and start requests mid-wait; the last
        /// seek still lands, and no request failed.
        @Test(arguments: MediaFixture.apps) func seeksReplacingSeeksWhilePlayingEndOnTheLastOne(app: HybridApp) throws {
            try FileManager.default.copyItem(atPath: video, toPath: sandbox.root + "/packages/media/1.0.0/big.webm")
            let run = try run(app, page: "storm.html")
            #expect(run.status == 0, "\(run.log)")
            #expect(run.stdout.contains("seeked=17.0 w=\(MediaFixture.width)"), "\(run.stdout)")
            // A request is a 206, or was replaced before its head came (status 0, nothing delivered).
            let lines = run.log.filter { $0.hasPrefix("pkgctl-media: ") }
            #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(" 206 ") || $0.hasSuffix(" 0 delivered=0 stopped") }, "\(lines)")
            #expect(lines.contains { $0.contains(" 206 ") } && !lines.contains { $0.contains("failed") }, "\(lines)")
        }

        /// The package lacks the video: the element's requests go to the origin with their `Range`
        /// (nginx answers 206 and sends a part of the file), and a media file, class `other`, is
        /// never written through, so no partial answer is ever stored as the file. The element asks
        /// for 512 KiB a request, so what a request abandoned at a seek had sent is bounded too (an
        /// open range lets the socket buffers take megabytes before the transfer pauses: measured,
        /// nginx sent 16 to 27 MB for 2.4 MB read).
        @Test(arguments: MediaFixture.apps) func aVideoFromTheOriginSeeksWithRangedRequestsAndIsNotWrittenThrough(app: HybridApp) throws {
            let originRoot = try TemporaryDirectory(prefix: "pkgctl-media-origin")
            try FileManager.default.createDirectory(atPath: originRoot.path + "/app", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: video, toPath: originRoot.path + "/app/big.webm")
            let origin = try ResolverOrigin(root: originRoot.path)
            let run = try run(app, origin: origin)
            let requests = try expectSeekedWithRanges(run)

            // A request stopped before its answer left may never reach nginx, or end there as 499.
            let asked = origin.settledRequests(to: "/app/big.webm")
            #expect(asked > 0 && asked <= requests.count, "\(origin.accessLog())")
            let statuses = origin.accessLog().filter { $0.hasPrefix("GET /app/big.webm ") }.map { $0.split(separator: " ")[2] }
            #expect(statuses.contains("206") && statuses.allSatisfy { $0 == "206" || $0 == "499" }, "\(origin.accessLog())")
            let sent = origin.bodyBytesSent(to: "/app/big.webm")
            #expect(sent.allSatisfy { $0 <= 512 * 1024 } && sent.reduce(0, +) < size / 3, "nginx sent \(sent) of \(size) bytes")
            let overlay = sandbox.store.layout.overlay
            let stored = (FileManager.default.subpaths(atPath: overlay) ?? []).filter { $0.hasSuffix("big.webm") }
            #expect(stored.isEmpty, "written through: \(stored)")
        }
    }
}
