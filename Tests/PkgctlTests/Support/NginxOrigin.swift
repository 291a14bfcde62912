import Foundation

/// A real nginx, private to one test, serving a directory on 127.0.0.1 over HTTP or HTTPS.
///
/// nginx runs as `/usr/sbin/nginx -p DIR -c DIR/nginx.conf -e DIR/error.log -g 'daemon off;'`
/// in one process (`master_process off`, so no worker switches user and the round-robin
/// state below is one counter), with its pid, logs and every `*_temp_path` in a temporary
/// directory that goes away with it. It listens on a free port (picked by binding port 0;
/// it retries with another port when nginx cannot bind) and is ready when `init` returns.
///
/// Paths it serves, `NAME` being a file under `root`:
/// - `/NAME`: the file, with nginx's ETag, Last-Modified, 304 and Range (206) handling.
/// - `/fail-once/NAME`: 500, then the file. An `upstream` of two servers in this order,
///   a `return 500` server and the static one, with `proxy_next_upstream off`; round robin
///   with equal weights picks the first server first and then alternates, so on a fresh
///   origin request 1 gets 500, request 2 the file (3 gets 500 again, and so on).
/// - `/cut-once/NAME`: request 1 goes to a ``TruncatingOrigin`` (200, full Content-Length,
///   half the body, then the connection closes), request 2 to the static server, which
///   honours `Range` with 206; the same alternation as `/fail-once/`.
/// - `/always-500/ANYTHING`: 500.
/// - `/busy-once/NAME`: 503 with `Retry-After: 2`, then the file; the same alternation.
/// - `/busy-for-an-hour/ANYTHING`: 429 with `Retry-After: 3600`.
/// - `/slow/NAME`: the file at `limit_rate 1` (1 byte/s, headers included), which trips
///   any stall timeout.
///
/// ```swift
/// let root = try TemporaryDirectory()
/// try root.write(bytes, to: "demo.zip")
/// let origin = try NginxOrigin(root: root.path, tls: true, accessLog: true)
/// defer { origin.stop() }
/// let downloader = Downloader(options: TransferOptions(caFile: origin.caFile))
/// try downloader.download(from: origin.baseURL + "/demo.zip", …)
/// #expect(origin.accessLog().contains { $0.hasPrefix("/demo.zip 200") })
/// ```
final class NginxOrigin {
    /// "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT", no trailing slash.
    let baseURL: String
    /// The port nginx listens on.
    let port: UInt16
    /// With `tls`, the PEM file of the throwaway CA that signed nginx's certificate.
    let caFile: String?

    private let directory: TemporaryDirectory
    private let truncatingOrigin: TruncatingOrigin
    private let process: Process
    private let accessLogPath: String?

    /// Starts nginx serving `root` (an absolute path); returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - tls: serve HTTPS (HTTP/2 offered by ALPN) with a certificate for 127.0.0.1 and
    ///     localhost from a new ``TestCertificateAuthority``, whose certificate is ``caFile``.
    ///   - accessLog: log each request to the public listener as one line
    ///     `URI STATUS "RANGE" BODY_BYTES_SENT CONNECTION` (nginx's connection serial number);
    ///     read them with ``accessLog()``.
    /// With `gzip`, nginx compresses what it sends (any type, 256 bytes or more) to
    /// clients that accept it, as the README advises an origin to.
    /// With `originConfig`, the public server block also `include`s the shipped
    /// `packaging/origin/nginx.conf` (Cache-Control per file class, gzip, `report/v1`
    /// answered 204), as an operator's server block would; its regex locations then win
    /// over the test paths above for the names they match.
    init(root: String, tls: Bool = false, accessLog: Bool = false, gzip: Bool = false,
         originConfig: Bool = false) throws {
        let directory = try TemporaryDirectory(prefix: "pkgctl-nginx")
        let authority = tls ? try TestCertificateAuthority(in: directory.path) : nil
        let truncatingOrigin = try TruncatingOrigin(root: root)
        let accessLogPath = accessLog ? directory.path("access.log") : nil

        var lastError = "nginx did not start"
        for _ in 0..<5 {
            let port = try Loopback.freePort()
            let configuration = Self.configuration(
                directory: directory.path, root: root, port: port, authority: authority,
                truncatingPort: truncatingOrigin.port, accessLog: accessLogPath, gzip: gzip,
                originConfig: originConfig)
            try Data(configuration.utf8).write(to: URL(fileURLWithPath: directory.path("nginx.conf")))
            let errorLog = directory.path("error.log")
            try? FileManager.default.removeItem(atPath: errorLog)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = [
                "-p", directory.path, "-c", directory.path("nginx.conf"), "-e", errorLog, "-g", "daemon off;",
            ]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try Self.launch(process)

            if Self.waitUntilReady(process, port: port) {
                self.baseURL = "\(tls ? "https" : "http")://127.0.0.1:\(port)"
                self.port = port
                self.caFile = authority?.caFile
                self.directory = directory
                self.truncatingOrigin = truncatingOrigin
                self.process = process
                self.accessLogPath = accessLogPath
                return
            }
            ProcessLaunch.stop(process)
            lastError = (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? lastError
            guard lastError.contains("Address already in use") else { break }
        }
        truncatingOrigin.stop()
        throw TestSupportError("nginx failed to start: \(lastError)")
    }

    deinit {
        stop()
    }

    /// Stops nginx (SIGTERM, SIGKILL after 5 s) and the truncating origin. Idempotent.
    func stop() {
        ProcessLaunch.stop(process)
        truncatingOrigin.stop()
    }

    /// The access log's lines so far (empty unless started with `accessLog: true`).
    func accessLog() -> [String] {
        guard let accessLogPath, let text = try? String(contentsOfFile: accessLogPath, encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// The path of the same log in nginx's `combined` format (as a real origin writes it).
    var combinedAccessLogPath: String? { accessLogPath.map { $0 + ".combined" } }

    /// The access log once every request answered so far is in it. nginx writes a line
    /// just after it answers, so a client can be ahead of the log; this sends one more
    /// request, a marker, and waits (bounded, 5 s) for its line, which comes after those
    /// of every request answered before it. Marker lines are left out.
    func settledAccessLog() -> [String] {
        let marker = "/.pkgctl-settle-" + UUID().uuidString
        _ = try? runCommand("/usr/bin/curl", ["-s", "-k", "-o", "/dev/null", baseURL + marker])
        _ = eventually(seconds: 5) { accessLog().contains { $0.hasPrefix(marker + " ") } }
        return accessLog().filter { !$0.hasPrefix("/.pkgctl-settle-") }
    }

    /// Requests that reached the ``TruncatingOrigin`` behind `/cut-once/`.
    var truncatedRequestCount: Int { truncatingOrigin.requestCount }

    // MARK: - Process control (also used by ResolverOrigin)

    /// Starts `process` with SIGTERM, SIGQUIT and SIGINT unblocked. A child inherits its
    /// parent thread's signal mask, and the threads Swift Testing and Dispatch run tests on
    /// block them, so nginx would otherwise ignore `terminate()`. Only these are unblocked,
    /// and only around the spawn: SIGCHLD stays with whoever watches it.
    static func launch(_ process: Process) throws {
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        for signal in [SIGTERM, SIGQUIT, SIGINT] { sigaddset(&stopSignals, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_UNBLOCK, &stopSignals, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        try ProcessLaunch.run(process)
    }

    /// Whether `process` accepts connections on `port` within 5 s (false once it exits).
    static func waitUntilReady(_ process: Process, port: UInt16) -> Bool {
        for _ in 0..<250 {  // 5 s at most
            if !process.isRunning { return false }
            if Loopback.accepts(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    /// The nginx include the .deb ships for origins (`packaging/origin/nginx.conf`).
    static let originConfigPath = BundleFixtures.repository + "/packaging/origin/nginx.conf"

    // MARK: - Private

    private static func configuration(
        directory: String, root: String, port: UInt16, authority: TestCertificateAuthority?,
        truncatingPort: UInt16, accessLog: String?, gzip: Bool, originConfig: Bool
    ) -> String {
        let listen: String
        if let authority {
            listen = """
                listen 127.0.0.1:\(port) ssl http2;
                        ssl_certificate "\(authority.certificateFile)";
                        ssl_certificate_key "\(authority.keyFile)";
                """
        } else {
            listen = "listen 127.0.0.1:\(port);"
        }
        return """
            worker_processes 1;
            master_process off;
            pid "\(directory)/nginx.pid";
            error_log "\(directory)/error.log" warn;
            events { worker_connections 64; }
            http {
                types { application/zip zip; application/json json; text/html html; text/plain txt; }
                default_type application/octet-stream;
                log_format pkgctl '$request_uri $status "$http_range" $body_bytes_sent $connection';
                access_log off;
                \(gzip ? "gzip on; gzip_min_length 256; gzip_types *;" : "")
                client_body_temp_path "\(directory)/client_body";
                proxy_temp_path "\(directory)/proxy";
                fastcgi_temp_path "\(directory)/fastcgi";
                uwsgi_temp_path "\(directory)/uwsgi";
                scgi_temp_path "\(directory)/scgi";

                # Equal-weight round robin: the first server first, then alternating.
                upstream fail_once { server unix:\(directory)/fail.sock; server unix:\(directory)/static.sock; }
                upstream cut_once { server 127.0.0.1:\(truncatingPort); server unix:\(directory)/static.sock; }
                upstream busy_once { server unix:\(directory)/busy.sock; server unix:\(directory)/static.sock; }

                server {
                    listen unix:\(directory)/static.sock;
                    root "\(root)";
                }
                server {
                    listen unix:\(directory)/fail.sock;
                    location / { return 500; }
                }
                server {
                    listen unix:\(directory)/busy.sock;
                    location / { add_header Retry-After 2 always; return 503; }
                }
                server {
                    \(listen)
                    \(accessLog.map { "access_log \"\($0)\" pkgctl; access_log \"\($0).combined\" combined;" } ?? "")
                    root "\(root)";
                    \(originConfig ? "include \"\(Self.originConfigPath)\";" : "")
                    location /fail-once/ { proxy_pass http://fail_once/; proxy_next_upstream off; }
                    location /cut-once/ { proxy_pass http://cut_once/; proxy_next_upstream off; }
                    location /always-500/ { return 500; }
                    location /busy-once/ { proxy_pass http://busy_once/; proxy_next_upstream off; }
                    location /busy-for-an-hour/ { add_header Retry-After 3600 always; return 429; }
                    location /slow/ { alias "\(root)/"; limit_rate 1; }
                }
            }

            """
    }
}
