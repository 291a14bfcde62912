import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

/// Image variants in a package (`X.png.avif`, `X.png.webp`): the resolver answers a request
/// for `X.png` with the best one its `Accept` names, under the original URL.
@Suite struct ImageNegotiationTests {
    static let png = [UInt8](repeating: 0x50, count: 4000)
    static let avif = [UInt8](repeating: 0x41, count: 1000)
    static let webp = [UInt8](repeating: 0x57, count: 2000)
    /// What WebKitGTK 2.40 (Debian 12) sends for an <img>: WebP, no AVIF.
    static let webKitAccept = "image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5"

    @Test(arguments: [
        (chromiumImageAccept, ImageVariant.avif), (ImageNegotiationTests.webKitAccept, .webp), ("image/avif;q=0, image/webp", .webp),
        ("image/*,*/*;q=0.8", nil), ("*/*", nil), ("IMAGE/AVIF", .avif), ("image/webp;q=0.0", nil), ("", nil),
        ("image/avif ; q=0.5", .avif),
    ] as [(String, ImageVariant?)])
    func acceptPicksAVIFThenWebPAndNeverByWildcard(_ accept: String, _ expected: ImageVariant?) {
        #expect(ImageVariant.preferred(for: accept, among: [.avif, .webp]) == expected)
    }

    @Test func onlyVariantsThatAreThereAreChosen() {
        #expect(ImageVariant.preferred(for: chromiumImageAccept, among: [.webp]) == .webp)
        #expect(ImageVariant.preferred(for: Self.webKitAccept, among: [.avif]) == nil)
        #expect(ImageVariant.preferred(for: nil, among: [.avif, .webp]) == nil)
    }

    func resolver(files: [String: [UInt8]]) throws -> (Resolver, ResolveSandbox) {
        let sandbox = try ResolveSandbox()
        try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: files)
        return (try Resolver(store: sandbox.store, configuration: ResolverConfiguration(upstream: "https://127.0.0.1:9")),
                sandbox)
    }

    @Test func eachEngineGetsTheLightestRepresentationItDecodesUnderTheOriginalURL() throws {
        let (resolver, sandbox) = try resolver(files: [
            "img/pic.png": Self.png, "img/pic.png.avif": Self.avif, "img/pic.png.webp": Self.webp,
        ])
        _ = sandbox
        func answer(_ accept: String?) throws -> LocalAnswer {
            let headers: [(name: String, value: String)] = accept.map { [("Accept", $0)] } ?? []
            return try #require(try resolver.answerLocally(
                ResourceRequest(url: "app://www.example.com/app/img/pic.png", headers: headers)))
        }
        let cases: [(String?, String, Int)] = [
            (chromiumImageAccept, "image/avif", Self.avif.count), (Self.webKitAccept, "image/webp", Self.webp.count),
            ("image/*,*/*;q=0.8", "image/png", Self.png.count), (nil, "image/png", Self.png.count),
        ]
        var etags = Set<String>()
        for (accept, type, size) in cases {
            let answer = try answer(accept)
            #expect(answer.response.status == 200)
            #expect(answer.response.header("Content-Type") == type, "Accept \(accept ?? "none")")
            #expect(answer.response.header("Content-Length") == String(size))
            #expect(answer.response.header("Vary") == "Accept", "every representation says what chose it")
            #expect(answer.file?.relativePath.hasPrefix("img/pic.png") == true)
            etags.insert(try #require(answer.response.header("ETag")))
        }
        #expect(etags.count == 3, "one ETag per representation: \(etags)")
        // A revalidation with the WebP's ETag is a 304 only for the engine that got the WebP.
        let webpTag = try answer(Self.webKitAccept).response.header("ETag")!
        let revalidated = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://www.example.com/app/img/pic.png", headers: [("Accept", Self.webKitAccept), ("If-None-Match", webpTag)])))
        #expect(revalidated.response.status == 304)
        let other = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://www.example.com/app/img/pic.png", headers: [("Accept", chromiumImageAccept), ("If-None-Match", webpTag)])))
        #expect(other.response.status == 200)
    }

    @Test func aVariantNoLighterThanTheOriginalIsNotServed() throws {
        let (resolver, sandbox) = try resolver(files: ["pic.jpg": Self.webp, "pic.jpg.webp": Self.png])
        _ = sandbox
        let answer = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://www.example.com/app/pic.jpg", headers: [("Accept", Self.webKitAccept)])))
        #expect(answer.response.header("Content-Type") == "image/jpeg")
        #expect(answer.response.header("Content-Length") == String(Self.webp.count))
    }

    @Test func aVersionHoldingOnlyTheVariantServesItForTheOriginalName() throws {
        // As `update --accept-images webp` installs it: the WebP, and no PNG.
        let (resolver, sandbox) = try resolver(files: ["img/pic.png.webp": Self.webp, "img/a.3f9c2b1d.png.webp": Self.webp])
        _ = sandbox
        for accept in [Self.webKitAccept, "*/*"] {
            let answer = try #require(try resolver.answerLocally(ResourceRequest(
                url: "app://www.example.com/app/img/pic.png", headers: [("Accept", accept)])))
            #expect(answer.response.header("Content-Type") == "image/webp")
            #expect(answer.response.header("Vary") == "Accept")
            #expect(answer.response.header("Content-Length") == String(Self.webp.count))
        }
        // Its caching follows the name asked for: a content-hashed one is immutable.
        let hashed = try #require(try resolver.answerLocally(ResourceRequest(
            url: "app://www.example.com/app/img/a.3f9c2b1d.png", headers: [("Accept", Self.webKitAccept)])))
        #expect(hashed.response.header("Cache-Control") == CachePolicy.immutable)
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/img/none.png")) == nil)
        // An Accept that refuses WebP by name does not get it: the request goes on as a miss.
        #expect(try resolver.answerLocally(ResourceRequest(url: "app://www.example.com/app/img/pic.png",
                                                           headers: [("Accept", "image/webp;q=0, image/png")])) == nil)
    }
}
