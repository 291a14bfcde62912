import FuzzSupport

/// A request the fuzz input picks: a URL of the fixture store (`FixtureStore`), with the
/// body a full 200 answer must have when the store holds that file.
struct ABIRequest {
    let url: String
    let expected: [UInt8]?

    /// Routed files of both packages, a file no package has (the origin, or offline the
    /// offline end), a folder without its slash (301), a refused path, a host nothing serves.
    static let table: [ABIRequest] = [
        demo("index.html"), demo("app.js"), demo("big.bin"), demo("css/site.css"), demo("sub/index.html"),
        ABIRequest(url: "app://www.example.com/app/a%20b.txt", expected: FixtureStore.demoFiles["a b.txt"]),
        ABIRequest(url: "app://static.example.com/empty.txt", expected: []),
        ABIRequest(url: "app://localhost:8080/guide.html", expected: Array("<p>guide</p>".utf8)),
        ABIRequest(url: "app://www.example.com/app/missing.js", expected: nil),
        ABIRequest(url: "app://www.example.com/app/sub", expected: nil),
        ABIRequest(url: "app://www.example.com/app/%2e%2e/%2e%2e/etc/passwd", expected: nil),
        ABIRequest(url: "app://other.example.org/img/x.png", expected: nil),
    ]

    private static func demo(_ path: String) -> ABIRequest {
        ABIRequest(url: "app://www.example.com/app/" + path, expected: FixtureStore.demoFiles[path])
    }
}
