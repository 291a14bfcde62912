import Foundation

/// An origin that misbehaves on purpose, as TUF's attack catalogue describes (a
/// Python process on 127.0.0.1). It serves the files under `root` at `/NAME`
/// over plain HTTP (``baseURL``) and, with `tls`, over HTTPS too (``tlsBaseURL``,
/// certificate from a ``TestCertificateAuthority``), and misbehaves by path prefix:
///
/// - `/endless/ANY`: 200, chunked, a JSON-looking body that never ends.
/// - `/inflating/ANY`: 200 with `Content-Encoding: gzip`: a gzip stream of zeros
///   that would inflate to 4 GiB (each MiB costs about 1 KB on the wire).
/// - `/drip/NAME`: the file with its `Content-Length`, one byte every 0.8 s.
/// - `/drip-objects/NAME`: the file; but `/drip-objects/objects/…` (delta objects) as `/drip/`.
/// - `/trickle/NAME`: the file at 2,000 bytes/s, above a 1,024 bytes/s minimum rate.
/// - `/always-304/ANY`: 304 Not Modified, whatever the request.
/// - `/to-http/NAME`: 302 to `http://127.0.0.1:PLAINPORT/NAME` (the plain listener).
/// - `/huge-header/NAME`: 200 with one 10 MB header line before the file.
///
/// Every loop ends when the client goes away or after a fixed bound; the process is
/// killed when the value is released.
final class HostileOrigin {
    /// "http://127.0.0.1:PORT".
    let baseURL: String
    /// "https://127.0.0.1:PORT" with `tls`, else nil.
    let tlsBaseURL: String?
    /// With `tls`, the CA file that verifies ``tlsBaseURL``.
    let caFile: String?
    private let process: Process
    private let certificates: TemporaryDirectory?

    init(root: String, tls: Bool = false) throws {
        let certificates = tls ? try TemporaryDirectory(prefix: "pkgctl-hostile") : nil
        let authority = try certificates.map { try TestCertificateAuthority(in: $0.path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script, root, authority?.certificateFile ?? "", authority?.keyFile ?? ""]
        let out = ProcessLaunch.pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try ProcessLaunch.run(process)
        self.process = process
        self.certificates = certificates
        let ports = try PkgctlProcess.firstLine(of: out, timeout: 10).split(separator: " ")
        baseURL = "http://127.0.0.1:" + ports[0]
        tlsBaseURL = ports.count > 1 ? "https://127.0.0.1:" + ports[1] : nil
        caFile = authority?.caFile
    }

    deinit {
        // SIGKILL: the test runner's threads may have SIGTERM blocked, and children inherit that.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static let script = """
        import os, socketserver, ssl, sys, threading, time, zlib
        root, cert, key = sys.argv[1], sys.argv[2], sys.argv[3]

        class Handler(socketserver.StreamRequestHandler):
            def send(self, data):
                self.wfile.write(data)
                self.wfile.flush()

            def head(self, status, fields):
                self.send(("HTTP/1.1 %s\\r\\n" % status + "".join("%s: %s\\r\\n" % f for f in fields) + "\\r\\n").encode())

            def file(self, name):
                path = os.path.join(root, name)
                if ".." in name or not os.path.isfile(path):
                    self.head("404 Not Found", [("Content-Length", "0")])
                    return None
                return open(path, "rb").read()

            def handle(self):
                line = self.rfile.readline(65536).decode("latin-1")
                while self.rfile.readline(65536) not in (b"\\r\\n", b"\\n", b""):
                    pass
                parts = line.split(" ")
                if len(parts) < 2:
                    return
                mode, _, name = parts[1].lstrip("/").partition("/")
                if mode == "drip-objects":
                    mode, name = ("drip", name) if name.startswith("objects/") else ("", name)
                    parts[1] = "/" + name
                try:
                    self.answer(mode, name, parts[1].lstrip("/"))
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
                    pass

            def answer(self, mode, name, path):
                if mode == "endless":
                    self.head("200 OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")])
                    chunk = b'{"schemaVersion":1,"packages":[' + b'{"name":"x"},' * 5000
                    for _ in range(100000):  # at most ~6 GB
                        self.send(b"%x\\r\\n%s\\r\\n" % (len(chunk), chunk))
                elif mode == "inflating":
                    self.head("200 OK", [("Content-Type", "application/json"), ("Content-Encoding", "gzip"),
                                         ("Transfer-Encoding", "chunked")])
                    deflate = zlib.compressobj(9, zlib.DEFLATED, 31)
                    zeros = bytes(1 << 20)
                    for _ in range(4096):  # 4 GiB inflated
                        data = deflate.compress(zeros)
                        if data:
                            self.send(b"%x\\r\\n%s\\r\\n" % (len(data), data))
                    data = deflate.flush()
                    self.send(b"%x\\r\\n%s\\r\\n0\\r\\n\\r\\n" % (len(data), data))
                elif mode in ("drip", "trickle"):
                    body = self.file(name)
                    if body is None:
                        return
                    self.head("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(len(body)))])
                    step, pause = (1, 0.8) if mode == "drip" else (200, 0.1)
                    for offset in range(0, len(body), step):
                        self.send(body[offset:offset + step])
                        time.sleep(pause)
                elif mode == "always-304":
                    self.head("304 Not Modified", [("ETag", '"frozen"')])
                elif mode == "to-http":
                    self.head("302 Found", [("Location", "http://127.0.0.1:%d/%s" % (plain.server_address[1], name)),
                                            ("Content-Length", "0")])
                elif mode == "huge-header":
                    body = self.file(name)
                    if body is None:
                        return
                    self.send(b"HTTP/1.1 200 OK\\r\\nX-Huge: " + b"a" * (10 << 20) + b"\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body) + body)
                else:
                    body = self.file(path)
                    if body is not None:
                        self.head("200 OK", [("Content-Type", "application/octet-stream"), ("Content-Length", str(len(body)))])
                        self.send(body)

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

        plain = Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        ports = [str(plain.server_address[1])]
        if cert:
            class TLSServer(Server):
                def get_request(self):
                    sock, address = super().get_request()
                    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                    context.load_cert_chain(cert, key)
                    return context.wrap_socket(sock, server_side=True), address
            secure = TLSServer(("127.0.0.1", 0), Handler)
            threading.Thread(target=secure.serve_forever, daemon=True).start()
            ports.append(str(secure.server_address[1]))
        print(" ".join(ports), flush=True)
        threading.Event().wait()
        """
}
