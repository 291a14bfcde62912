import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing

extension WebEngineSuites {
    /// A page's `Range` in Chromium (`Examples/HybridAppQt`, Qt 6.4): Qt answers a single range
    /// itself, from the device's size() and a seek() to the range's first byte (none for a suffix
    /// `bytes=-N`). The host gives the range to the resolver and places the body: a resolver 206
    /// (the package) starts at its first byte, a 200 (`/no-ranges/`: an origin that ignores Range)
    /// at 0 and is dropped up to the range. Either way the page gets the range's bytes with a 206.
    @Suite(.serialized, .enabled(if: MediaFixture.qtApp != nil, "needs HYBRID_APP_QT and a display (scripts/test)"))
    struct ChromiumRangeTests {
        /// A range, the body it asks of `0123456789abcdefghij`, and Qt's `Content-Range`.
        static let cases: [(range: String, expected: String)] = [
            ("bytes=3-6", "status:206 body:3456 range:bytes 3-6/20"),
            ("bytes=-4", "status:206 body:ghij range:bytes 16-19/20"),
            ("bytes=15-", "status:206 body:fghij range:bytes 15-19/20"),
        ]

        @Test(arguments: [false, true]) func eachRangeGetsItsBytesFromAPartAndFromAWholeAnswer(fromOrigin: Bool) throws {
            let sandbox = try ResolveSandbox()
            let originRoot = try TemporaryDirectory(prefix: "pkgctl-qtrange-origin")
            try Data("0123456789abcdefghij".utf8).write(to: URL(fileURLWithPath: originRoot.path + "/data.txt"))
            let origin = try ResolverOrigin(root: originRoot.path)
            defer { origin.stop() }
            let path = fromOrigin ? "/no-ranges/data.txt" : "data.txt"
            var files = ["data.txt": Array("0123456789abcdefghij".utf8)]
            for (index, item) in Self.cases.enumerated() { files["range\(index).html"] = Array(HybridAppPages.range(path, item.range).utf8) }
            try sandbox.install("app", "1.0.0", routes: ["www.example.com/app"], files: files)
            for (index, item) in Self.cases.enumerated() {
                let run = try HybridAppProcess.run(try #require(MediaFixture.qtApp), [
                    "--root", sandbox.root, "--upstream", origin.baseURL, "--ca-file", origin.caFile, "--dump-dom",
                    "--wait-for", HybridAppPages.waitForDone, "--timeout", "60", "app://www.example.com/app/range\(index).html",
                ])
                #expect(run.status == 0, "\(run.log)")
                #expect(run.stdout.contains(item.expected), "\(item.range): \(run.stdout)")
                // The resolver's answer: the part from the package, the whole file from /no-ranges/.
                let answer = fromOrigin ? " 200 other origin 20B range=\(item.range)" : " 206 other package "
                #expect(run.log.contains { $0.contains("/data.txt") && $0.contains(answer) }, "\(run.log)")
            }
        }
    }
}
