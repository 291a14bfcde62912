import Foundation
import PkgCore

/// A tiny HTTP/1.x origin on a loopback socket that cuts every response short: a request
/// for `/NAME` gets `200` with the full `Content-Length` of `ROOT/NAME` but only the first
/// half of the body, then the connection closes (after a short pause, so a proxy in front
/// forwards the half before it sees the end). With `cutting: n`, only the first `n` requests
/// are cut and later ones get the whole file with 200. Range headers are always ignored,
/// which makes it an origin that answers a resume with 200. Missing files get 404.
///
/// ``NginxOrigin`` puts it first in the upstream behind `/cut-once/`; on its own:
///
/// ```swift
/// let origin = try TruncatingOrigin(root: directory.path)
/// defer { origin.stop() }
/// // GET http://127.0.0.1:\(origin.port)/demo.zip → half of demo.zip, then EOF
/// ```
final class TruncatingOrigin: Sendable {
    /// The loopback port it listens on.
    let port: UInt16

    private let root: String
    private let cutting: Int
    private let listener: Int32
    private let state = PosixMutex(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var stopping = false
        var requests = 0
    }

    /// Starts serving `root` on a free 127.0.0.1 port, on a thread of its own, cutting the
    /// first `cutting` responses short (all of them by default).
    init(root: String, cutting: Int = .max) throws {
        (listener, port) = try Loopback.listen()
        self.root = root
        self.cutting = cutting
        let thread = Thread { [self] in serve() }
        thread.name = "TruncatingOrigin"
        thread.start()
    }

    deinit {
        stop()
    }

    /// Requests answered so far.
    var requestCount: Int { state.withLock { $0.requests } }

    /// Stops accepting, waits (at most a few seconds) for the serving thread, closes the socket.
    func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard wasRunning else { return }
        _ = finished.wait(timeout: .now() + 5)
    }

    private func serve() {
        defer {
            close(listener)
            finished.signal()
        }
        while !state.withLock({ $0.stopping }) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            // Close-on-exec (Glibc has no accept4 for Swift): a child started now must not keep
            // this connection open past the close that ends the answer.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            answer(client)
            close(client)
        }
    }

    private func answer(_ client: Int32) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        // Read the request head (bounded), then take the path of its first line.
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 65_536, !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            head += buffer[0..<count]
        }
        let number = state.withLock { state -> Int in
            state.requests += 1
            return state.requests
        }
        let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = requestLine.split(separator: " ")
        var name = parts.count >= 2 ? String(parts[1]) : "/"
        if name.hasPrefix("/cut-once/") { name.removeFirst("/cut-once".count) }
        guard !name.contains(".."), let body = FileManager.default.contents(atPath: root + name) else {
            send(client, Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let header =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let cut = number <= cutting
        send(client, Array(header.utf8) + Array(cut ? body.prefix(body.count / 2) : body))
        if cut { usleep(150_000) }
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}

/// Loopback TCP helpers for the test origins.
enum Loopback {
    /// A listening socket bound to 127.0.0.1 on a port the kernel picked, and that port.
    static func listen(backlog: Int32 = 16) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestSupportError("bind/listen 127.0.0.1:0: \(reason)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    /// A port that was free a moment ago: bound with port 0, read back, closed. Another
    /// process may take it before it is used, so callers retry on "Address already in use".
    static func freePort() throws -> UInt16 {
        let (descriptor, port) = try listen()
        close(descriptor)
        return port
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
    static func accepts(port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        return address
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
