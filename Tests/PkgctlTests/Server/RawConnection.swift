import Foundation
import Glibc

/// A TCP connection to 127.0.0.1 with each send and read under the test's
/// control, and what the peer did at the end: a clean close or a reset.
final class RawConnection {
    private let fd: Int32

    init(port: Int, timeout: TimeInterval) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeval = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeval, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends all of `bytes`; false when the peer refused them (reset or closed).
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// Reads until `predicate` holds for what arrived, the peer closes, or the timeout.
    func read(until predicate: ([UInt8]) -> Bool) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !predicate(received) {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }

    /// Reads until the peer closes; `reset` tells a reset (or any error) from a clean close.
    func readToEnd() -> (bytes: [UInt8], reset: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { received += buffer[0..<count]; continue }
            return (received, count < 0)
        }
    }

    /// Says this side has no more to send (FIN); false when the connection is already gone (reset).
    func finishSending() -> Bool { shutdown(fd, Int32(SHUT_WR)) == 0 }
}
