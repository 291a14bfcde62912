import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// The overlay keeps an origin's negotiated representations apart (`Vary`), against nginx
/// negotiating WebP by `Accept` as image CDNs do (``ResolverOrigin``'s `/negotiate/`).
@Suite(.serialized) struct VaryTests {
    let sandbox: ResolveSandbox
    let originRoot: TemporaryDirectory
    let origin: ResolverOrigin
    let resolver: Resolver
    static let png: [UInt8] = Array("PNG bytes of pic".utf8)
    static let webp: [UInt8] = Array("WEBP bytes of pic, smaller".utf8)
    /// What WebKitGTK 2.40 and an older engine without WebP send for an <img>.
    static let webpAccept = chromiumImageAccept
    static let pngOnlyAccept = "image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"

    init() throws {
        sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: ["index.html": Array("local".utf8)])
        originRoot = try TemporaryDirectory(prefix: "pkgctl-origin")
        _ = try originRoot.write(Self.png, to: "negotiate/pic.png")
        _ = try originRoot.write(Self.webp, to: "negotiate/pic.png.webp")
        _ = try originRoot.write(Self.png, to: "pic.png")
        _ = try originRoot.write(Array("body { }\n".utf8), to: "style.css")
        origin = try ResolverOrigin(root: originRoot.path)
        resolver = try Resolver(store: sandbox.store, configuration: ResolverConfiguration(
            upstream: origin.baseURL, caFile: origin.caFile, writeThroughImages: true))
    }

    func run(_ url: String, accept: String?, headers: [(name: String, value: String)] = []) -> RecordingTask {
        let task = RecordingTask(url, accept: accept, headers: headers)
        resolver.start(task)
        #expect(task.wait(seconds: 20))
        #expect(task.isWellOrdered)
        return task
    }

    func idle() -> Bool { eventually(seconds: 10) { resolver.upstreamTransfersInFlight == 0 } }

    func overlayFiles() -> [String] {
        let root = sandbox.store.layout.overlay
        return (FileManager.default.subpaths(atPath: root) ?? []).filter {
            !$0.hasPrefix(".tmp") && !FileSystem.isDirectory(root + "/" + $0)
        }
    }

    @Test func aNegotiatedImageIsStoredPerAcceptAndServedOnlyToRequestsThatChoseIt() throws {
        for path in ["/negotiate/pic.png", "/app/negotiate/pic.png"] {  // unrouted host, then routed
            let host = path.hasPrefix("/app/") ? "www.example.com" : "cdn.example.org"
            if path.hasPrefix("/app/") {
                _ = try originRoot.write(Self.png, to: "app/negotiate/pic.png")
                _ = try originRoot.write(Self.webp, to: "app/negotiate/pic.png.webp")
            }
            let url = "app://" + host + path
            let webp = run(url, accept: Self.webpAccept)
            #expect(webp.body == Self.webp)
            #expect(webp.response?.header("Content-Type") == "image/webp")
            #expect(idle())
            // An engine without WebP must not get the stored WebP: it is fetched for it.
            let png = run(url, accept: Self.pngOnlyAccept)
            #expect(png.body == Self.png, "\(url): the WebP written through for another Accept was served")
            #expect(png.response?.header("Content-Type") == "image/png")
            #expect(idle())
            #expect(origin.settledRequests(to: path) == 2)
            // Both are now in the overlay, each for its own Accept, with its own type, ETag and Vary.
            let webpAgain = run(url, accept: Self.webpAccept)
            let pngAgain = run(url, accept: Self.pngOnlyAccept)
            #expect(webpAgain.body == Self.webp && pngAgain.body == Self.png)
            #expect(webpAgain.response?.header("Content-Type") == "image/webp")
            #expect(pngAgain.response?.header("Content-Type") == "image/png")
            #expect(webpAgain.response?.header("Vary") == "accept")
            #expect(pngAgain.response?.header("Vary") == "accept")
            let etags = [webpAgain, pngAgain].compactMap { $0.response?.header("ETag") }
            #expect(etags.count == 2 && etags[0] != etags[1])
            #expect(origin.settledRequests(to: path) == 2, "\(origin.accessLog())")
            #expect(try resolver.plan(for: ResourceRequest(url: url, headers: [("Accept", Self.webpAccept)])).fromOverlay)
            // A third Accept is a miss of its own.
            #expect(try !resolver.plan(for: ResourceRequest(url: url, headers: [("Accept", "image/avif")])).fromOverlay)
            // A revalidation of the stored WebP gets a 304 for its ETag.
            let revalidated = run(url, accept: Self.webpAccept, headers: [("If-None-Match", etags[0])])
            #expect(revalidated.response?.status == 304)
        }
        // Nothing was stored under the plain keys, where a request of any Accept would find it.
        let files = overlayFiles()
        #expect(!files.contains("cdn.example.org/negotiate/pic.png"))
        #expect(!files.contains("app@1.0.0/www.example.com/app/negotiate/pic.png"))
        #expect(files.filter { $0.hasPrefix(".vary/") }.count == 5, "\(files)")  // fields, 2 bodies, 2 types
        #expect(files.filter { $0.hasPrefix("app@1.0.0/.vary/") }.count == 5, "\(files)")
    }

    /// Two engines asking at once for an image the origin negotiates: each gets its own
    /// representation, not the one the other's fetch brought (a shared fetch is keyed by Accept too).
    @Test func concurrentRequestsWithOtherAcceptsDoNotShareAFetch() throws {
        let large = [UInt8](repeating: 0x50, count: 200_000), smaller = [UInt8](repeating: 0x57, count: 100_000)
        _ = try originRoot.write(large, to: "negotiate-slowly/big.png")
        _ = try originRoot.write(smaller, to: "negotiate-slowly/big.png.webp")
        let webp = RecordingTask("app://cdn.example.org/negotiate-slowly/big.png", accept: Self.webpAccept)
        let png = RecordingTask("app://cdn.example.org/negotiate-slowly/big.png", accept: Self.pngOnlyAccept)
        resolver.start(webp)
        resolver.start(png)
        #expect(webp.wait(seconds: 30) && png.wait(seconds: 30))
        #expect(webp.body == smaller && webp.response?.header("Content-Type") == "image/webp")
        #expect(png.body == large && png.response?.header("Content-Type") == "image/png", "\(png.response?.headers ?? [])")
        #expect(origin.settledRequests(to: "/negotiate-slowly/big.png") == 2)
    }

    /// A prefetch from a negotiating origin keeps the representation for the Accept it sends:
    /// with the web view's Accept (`pkgctl prefetch --header`) the web view then hits the overlay;
    /// with the default `*/*` it would not.
    @Test func aPrefetchWithTheEnginesAcceptIsWhatTheEngineFinds() throws {
        let url = "app://cdn.example.org/negotiate/pic.png"
        let plain = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--upstream", origin.baseURL,
                                           "--ca-file", origin.caFile, url])
        #expect(plain.status == 0, "\(plain.stdout) \(plain.stderr)")
        #expect(try !resolver.plan(for: ResourceRequest(url: url, headers: [("Accept", Self.webpAccept)])).fromOverlay)
        let engine = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--upstream", origin.baseURL,
                                            "--ca-file", origin.caFile, "--header", "Accept: " + Self.webpAccept, url])
        #expect(engine.status == 0, "\(engine.stdout) \(engine.stderr)")
        let answer = run(url, accept: Self.webpAccept)
        #expect(answer.body == Self.webp && answer.response?.header("Content-Type") == "image/webp")
        #expect(origin.settledRequests(to: "/negotiate/pic.png") == 2, "the engine's request was a hit")
        let refused = try PkgctlProcess.run(["prefetch", "--root", sandbox.root, "--header", "Accept", url])
        #expect(refused.status == 64 && refused.stderr.contains("--header"), "\(refused.stderr)")
    }

    @Test func anAnswerThatVariesOnAnythingIsNeverWrittenThrough() throws {
        for _ in 0..<2 {
            let task = run("app://cdn.example.org/vary-star/style.css", accept: "text/css,*/*;q=0.1")
            #expect(task.response?.status == 200)
            #expect(task.response?.header("Vary") == "*")
            #expect(idle())
        }
        #expect(origin.settledRequests(to: "/vary-star/style.css") == 2)
        #expect(overlayFiles().isEmpty, "\(overlayFiles())")
    }

    @Test func anAnswerThatVariesOnlyOnAcceptEncodingServesEveryClient() throws {
        // The resolver forwards no Accept-Encoding on a shared fetch: one identity answer fits all.
        _ = run("app://cdn.example.org/vary-encoding/style.css", accept: "text/css", headers: [("Accept-Encoding", "gzip")])
        #expect(idle())
        let again = run("app://cdn.example.org/vary-encoding/style.css", accept: "text/css", headers: [("Accept-Encoding", "br")])
        #expect(again.text == "body { }\n")
        #expect(origin.settledRequests(to: "/vary-encoding/style.css") == 1)
        #expect(overlayFiles() == ["cdn.example.org/vary-encoding/style.css"])
    }

    @Test func aKeyStoresAtMostItsLimitOfRepresentations() throws {
        let limit = Overlay.representationLimit
        for index in 0...limit {
            _ = run("app://cdn.example.org/negotiate/pic.png", accept: "image/webp;q=0.\(index + 1)")
            #expect(idle())
        }
        let bodies = overlayFiles().filter { $0.hasPrefix(".vary/") && !$0.hasSuffix(".type") && !$0.hasSuffix("/fields") }
        #expect(bodies.count == limit)
        // A type is written only with its body: none for the representation refused.
        #expect(overlayFiles().filter { $0.hasSuffix(".type") }.count == limit)
        #expect(origin.settledRequests(to: "/negotiate/pic.png") == limit + 1)
    }

    @Test(arguments: [
        ([("Vary", "Accept")], VaryHeader.fields(["accept"])),
        ([("vary", "ACCEPT-Language , accept"), ("Vary", "Accept-Encoding")], .fields(["accept", "accept-language"])),
        ([("Vary", "Accept-Encoding")], .none),
        ([("Content-Type", "image/png")], .none),
        ([("Vary", "Accept, *")], .any),
        ([("Vary", "Accept"), ("Vary", "*")], .any),
        ([("Vary", "Acc ept")], .any),
        ([("Vary", "a,b,c,d,e,f,g,h,i")], .any),
    ] as [([(String, String)], VaryHeader)])
    func theVaryFieldIsReadAsRFC9110Lists(_ headers: [(String, String)], _ expected: VaryHeader) {
        #expect(VaryHeader(headers.map { (name: $0.0, value: $0.1) }) == expected)
    }

    @Test func selectingValuesIgnoreWhitespaceAroundItemsAndJoinFieldLines() {
        let one = VaryHeader.selectingValues(of: ["accept"], in: [("Accept", "image/webp, image/*")])
        let two = VaryHeader.selectingValues(of: ["accept"], in: [("accept", "image/webp"), ("ACCEPT", " image/*")])
        #expect(one == two)
        #expect(one != VaryHeader.selectingValues(of: ["accept"], in: [("Accept", "image/*")]))
        #expect(VaryHeader.selectingValues(of: ["accept"], in: []) == "accept:\n")
    }
}
