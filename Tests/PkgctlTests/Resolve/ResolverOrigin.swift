import Foundation
@testable import PkgCore
@testable import PkgPublishing

/// A loopback HTTPS nginx (test CA from TestCertificateAuthority) with the
/// locations the resolver tests need, beside the transfer tests' NginxOrigin:
/// static files, `/set-cookie/`, `/no-store/`, `/private/`, `/always-500/`, `/no-ranges/` (ignores `Range`: a 200),
/// `/slow/` (limit_rate), `/stream/` (limit_rate, no-store), `/echo-cookie` and `/echo-post` (the body is logged);
/// and negotiation as image CDNs do it: `…/negotiate/NAME` (at any depth) sends `NAME.webp` (type image/webp) when
/// `Accept` names image/webp and `NAME` otherwise, with `Vary: Accept`; `/vary-star/` and
/// `/vary-encoding/` send the file with `Vary: *` and `Vary: Accept-Encoding`.
final class ResolverOrigin: @unchecked Sendable {
    let baseURL: String
    let caFile: String
    let root: String
    private let directory: TemporaryDirectory
    private let process: Process

    init(root: String, slowRate: String = "64k") throws {
        let directory = try TemporaryDirectory(prefix: "pkgctl-resolver-nginx")
        let authority = try TestCertificateAuthority(in: directory.path)
        var lastError = "nginx did not start"
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let configuration = """
                worker_processes 1;
                master_process off;
                pid "\(directory.path)/nginx.pid";
                error_log "\(directory.path)/error.log" warn;
                events { worker_connections 1024; }
                http {
                    types { text/html html; text/css css; text/javascript js; image/png png; image/webp webp; application/json json; }
                    map $http_accept $webp_suffix { default ""; "~image/webp" ".webp"; }
                    default_type application/octet-stream;
                    log_format resolver '$request_method $request_uri $status $body_bytes_sent "$request_body"';
                    access_log "\(directory.path)/access.log" resolver;
                    client_body_temp_path "\(directory.path)/client_body";
                    proxy_temp_path "\(directory.path)/proxy";
                    fastcgi_temp_path "\(directory.path)/fastcgi";
                    uwsgi_temp_path "\(directory.path)/uwsgi";
                    scgi_temp_path "\(directory.path)/scgi";
                    server {
                        listen unix:\(directory.path)/inner.sock;
                        location / { return 200 "posted\\n"; }
                    }
                    server {
                        listen 127.0.0.1:\(port) ssl;
                        ssl_certificate "\(authority.certificateFile)";
                        ssl_certificate_key "\(authority.keyFile)";
                        root "\(root)";
                        location /set-cookie/ { alias "\(root)/"; add_header Set-Cookie "session=1"; }
                        location /no-store/ { alias "\(root)/"; add_header Cache-Control "no-store"; }
                        location /private/ { alias "\(root)/"; add_header Cache-Control "private, max-age=60"; }
                        location ~ /negotiate/ { add_header Vary Accept; try_files $uri$webp_suffix $uri =404; }
                        location ~ /negotiate-slowly/ { add_header Vary Accept; limit_rate \(slowRate); try_files $uri$webp_suffix $uri =404; }
                        location /vary-star/ { alias "\(root)/"; add_header Vary "*"; }
                        location /vary-encoding/ { alias "\(root)/"; add_header Vary "Accept-Encoding"; }
                        location /always-500/ { return 500 "broken\\n"; }
                        location /no-ranges/ { alias "\(root)/"; max_ranges 0; }
                        location /slow/ { alias "\(root)/"; limit_rate \(slowRate); }
                        location /stream/ { alias "\(root)/"; limit_rate \(slowRate); add_header Cache-Control "no-store"; }
                        location = /echo-cookie { default_type text/plain; return 200 "cookie=$http_cookie ua=$http_user_agent\\n"; }
                        location = /echo-post { proxy_pass http://unix:\(directory.path)/inner.sock:/; }
                    }
                }

                """
            let configFile = try directory.write(Array(configuration.utf8), to: "nginx.conf")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", directory.path, "-c", configFile, "-e", directory.path("error.log"), "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try NginxOrigin.launch(process)
            if NginxOrigin.waitUntilReady(process, port: port) {
                self.baseURL = "https://127.0.0.1:\(port)"
                self.caFile = authority.caFile
                self.root = root
                self.directory = directory
                self.process = process
                return
            }
            ProcessLaunch.stop(process)
            lastError = (try? String(contentsOfFile: directory.path("error.log"), encoding: .utf8)) ?? lastError
        }
        throw TestSupportError(lastError)
    }

    deinit { stop() }

    func stop() { ProcessLaunch.stop(process) }

    /// Access-log lines: `METHOD URI STATUS BODY_BYTES_SENT "REQUEST_BODY"`; nginx writes
    /// one when a request ends, a cut one included (with the bytes it got out).
    func accessLog() -> [String] {
        let text = (try? String(contentsOfFile: directory.path("access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    /// The body bytes nginx sent for each finished request to `uri`, in order, once every request
    /// answered so far is logged (``settle()``).
    func bodyBytesSent(to uri: String) -> [Int] {
        settle()
        return accessLog().map { $0.split(separator: " ") }.filter { $0.count > 3 && $0[1] == uri }.compactMap { Int($0[3]) }
    }

    /// ``requests(to:)`` once every request answered so far is logged (``settle()``).
    func settledRequests(to uri: String) -> Int {
        settle()
        return requests(to: uri)
    }

    /// Waits until every request answered so far is logged: nginx writes a line just after it
    /// answers, so a client can have the whole answer before its line is there. This sends a
    /// marker request and waits (5 s at most) for the marker's line.
    func settle() {
        let marker = "/.pkgctl-settle-" + UUID().uuidString
        _ = try? runCommand("/usr/bin/curl", ["-s", "-k", "-o", "/dev/null", baseURL + marker])
        _ = eventually(seconds: 5) { requests(to: marker) == 1 }
    }

    func requests(to uri: String) -> Int {
        accessLog().filter { $0.split(separator: " ").dropFirst().first.map(String.init) == uri }.count
    }
}
