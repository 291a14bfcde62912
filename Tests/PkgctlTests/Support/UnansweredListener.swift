import Glibc

/// A port on 127.0.0.1 where a TCP connect hangs instead of being refused: the socket
/// listens with a backlog of 0 and never accepts, and two connections already fill its
/// queue, so Linux drops the next SYN (the client retries it after 1 s, 3 s, ...). What a
/// connect timeout is for, without leaving the loopback interface.
final class UnansweredListener {
    let port: UInt16
    private let descriptors: [Int32]

    init() throws {
        let (listener, port) = try Loopback.listen(backlog: 0)
        var descriptors = [listener]
        for _ in 0..<2 {
            let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard client >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
            descriptors.append(client)
            var address = Loopback.loopbackAddress(port: port)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        self.port = port
        self.descriptors = descriptors
    }

    deinit { for descriptor in descriptors { close(descriptor) } }
}
