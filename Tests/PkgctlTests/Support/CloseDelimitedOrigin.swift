import Foundation

/// A loopback HTTP/1.0 origin (a Python process) whose answers carry no
/// `Content-Length`: the body ends when the connection closes. `GET /NAME`
/// answers `ROOT/NAME` in two halves with a pause between, 404 when missing.
final class CloseDelimitedOrigin {
    let baseURL: String
    private let process: Process

    init(root: String) throws {
        let script = """
            import os, socketserver, sys, time
            root = sys.argv[1]
            class Handler(socketserver.StreamRequestHandler):
                def handle(self):
                    line = self.rfile.readline().decode()
                    while self.rfile.readline() not in (b"\\r\\n", b"\\n", b""):
                        pass
                    path = os.path.join(root, line.split(" ")[1].lstrip("/"))
                    if not os.path.isfile(path):
                        self.wfile.write(b"HTTP/1.0 404 Not Found\\r\\n\\r\\n")
                        return
                    body = open(path, "rb").read()
                    self.wfile.write(b"HTTP/1.0 200 OK\\r\\nContent-Type: application/octet-stream\\r\\n\\r\\n")
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    time.sleep(0.2)
                    self.wfile.write(body[len(body) // 2 :])
            socketserver.ThreadingTCPServer.allow_reuse_address = True
            server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, root]
        let out = ProcessLaunch.pipe()
        process.standardOutput = out
        try ProcessLaunch.run(process)
        self.process = process
        let port = try PkgctlProcess.firstLine(of: out, timeout: 10)
        baseURL = "http://127.0.0.1:" + port
    }

    deinit {
        // SIGKILL: the test runner's threads may have SIGTERM blocked, and children inherit that.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
