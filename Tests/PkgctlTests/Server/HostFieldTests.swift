import Foundation
import Testing
@testable import PkgCore
@testable import PkgPublishing
@testable import PkgServer

/// RFC 9112 §3.2: a request without `Host` (HTTP/1.1), with two `Host` fields, or with a
/// `Host` that is no host is answered 400 by `pkgctl serve` as by nginx, sent the same bytes
/// side by side, although `--default-host` would otherwise have served each of them
/// (uNetworking's h1spec found the first two answered 200).
@Suite struct HostFieldTests {
    /// Each request, and whether a server must refuse it. nginx 1.22 refuses a Host with a
    /// `/` but not one with a bad port (`:80x`, which it cuts off); serve refuses both.
    static let cases: [(request: String, refused: Bool)] = [
        ("GET /app/index.html HTTP/1.1\r\nConnection: close\r\n\r\n", true),
        ("GET /app/index.html HTTP/1.1\r\nHost: www.example.com\r\nHost: www.example.com\r\nConnection: close\r\n\r\n", true),
        ("GET /app/index.html HTTP/1.1\r\nHost: www.example.com\r\nhost: other.example.com\r\nConnection: close\r\n\r\n", true),
        ("GET /app/index.html HTTP/1.1\r\nHost: www.example.com/app\r\nConnection: close\r\n\r\n", true),
        ("GET /app/index.html HTTP/1.1\r\nHost: www.example.com:80x\r\nConnection: close\r\n\r\n", true),
        ("GET /app/index.html HTTP/1.0\r\n\r\n", false),
        ("GET /app/index.html HTTP/1.1\r\nHost: www.example.com:8080\r\nConnection: close\r\n\r\n", false),
        ("GET /app/index.html HTTP/1.1\r\nHost: [::1]:8080\r\nConnection: close\r\n\r\n", false),
    ]

    static func status(of response: [UInt8]) -> Int? {
        let line = String(decoding: response.prefix(while: { $0 != UInt8(ascii: "\r") }), as: UTF8.self)
        let fields = line.split(separator: " ")
        return fields.count > 1 ? Int(fields[1]) : nil
    }

    @Test func serveRefusesAMissingRepeatedOrMalformedHostAsNginxDoes() throws {
        let temp = try TemporaryDirectory()
        let origin = temp.path + "/origin"
        let store = PackageStore(root: temp.path + "/store")
        try BundleFixtures.publishDemo(["1.0.0"], into: origin)
        #expect(try Updater(store: store, manifestURL: "file://" + origin + "/manifest.json").run().succeeded)
        let resolver = try Resolver(store: store)
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com", offline: true))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        let site = try TemporaryDirectory()
        _ = try site.write(Array("<p>nginx</p>".utf8), to: "app/index.html")
        let nginx = try NginxOrigin(root: site.path, tls: false)
        defer { nginx.stop() }

        for (request, refused) in Self.cases {
            let ours = try HTTPExchange.rawBytes(Array(request.utf8), port: port)
            let theirs = try HTTPExchange.rawBytes(Array(request.utf8), port: Int(nginx.port))
            let shown = request.replacingOccurrences(of: "\r\n", with: "⏎")
            let nginxRefuses = refused && !request.contains(":80x")
            #expect(Self.status(of: theirs) == (nginxRefuses ? 400 : 200), "nginx: \(shown)")
            #expect(Self.status(of: ours) == (refused ? 400 : 200), "serve: \(shown): \(String(decoding: ours.prefix(400), as: UTF8.self))")
            if refused {
                #expect(String(decoding: ours, as: UTF8.self).contains("Host"), "the 400 names the field: \(shown)")
            }
        }
    }

    /// uNetworking's h1spec "Missing Host header" with a body announced and not sent: nginx answers
    /// 400 at once, and so does serve, instead of waiting for the body (RFC 9112 §3.2).
    @Test func aRequestWithoutHostIsRefusedBeforeItsBodyIsRead() throws {
        let temp = try TemporaryDirectory()
        let resolver = try Resolver(store: PackageStore(root: try temp.makeDirectory("store")))
        let server = PreviewServer(resolver: resolver, configuration: PreviewServerConfiguration(
            port: 0, defaultHost: "www.example.com", offline: true))
        let port = try #require(try server.start().port)
        defer { try? server.shutdown() }
        let connection = try RawConnection(port: port, timeout: 3)
        #expect(connection.send(Array("GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\n".utf8)))
        let started = Date()
        let answer = connection.read { $0.firstRange(of: Array("without a Host".utf8)) != nil }
        #expect(Self.status(of: answer) == 400, "\(String(decoding: answer, as: UTF8.self))")
        #expect(Date().timeIntervalSince(started) < 2, "answered without waiting for the 5 bytes of body")
    }

    /// What `serve` takes for its own address, which it never fetches from: a loopback name or the
    /// bound address, at the port the request came in on (443 when the Host names none).
    @Test func ownAddressIsALoopbackOrTheBoundHostAtTheListeningPort() {
        for host in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST:8080", "app.localhost:8080", "10.1.2.3:8080"] {
            #expect(HostField.isOwnAddress(host, bindHost: "10.1.2.3", port: 8080), "\(host)")
        }
        #expect(HostField.isOwnAddress("127.0.0.1", bindHost: "127.0.0.1", port: 443))
        for host in ["127.0.0.1:8443", "www.example.com:8080", "127.example.com:8080", "127.0.0.1", "10.1.2.4:8080"] {
            #expect(!HostField.isOwnAddress(host, bindHost: "10.1.2.3", port: 8080), "\(host)")
        }
    }
}
