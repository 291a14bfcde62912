import Foundation
import Glibc

/// Test clients for the preview server: the curl CLI, and a raw TCP socket for
/// what curl will not send (pipelined, malformed or oversized requests).
enum HTTPExchange {
    /// A parsed answer of `curl -si`.
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Runs `curl -s -i ARGUMENTS URL` and parses the last response it printed.
    static func curl(_ url: String, _ arguments: [String] = []) throws -> Response {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-i", "--max-time", "10"] + arguments + [url]
        let output = ProcessLaunch.pipe()
        process.standardOutput = output
        try ProcessLaunch.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try parse(data)
    }

    /// Sends `bytes` on a new connection to 127.0.0.1:`port` and reads until the
    /// server closes or `timeout` passes.
    static func raw(_ bytes: [UInt8], port: Int, timeout: TimeInterval = 5) throws -> String {
        String(decoding: try rawBytes(bytes, port: port, timeout: timeout), as: UTF8.self)
    }

    /// ``raw(_:port:timeout:)`` with the answer's bytes; `beforeReading` runs after
    /// `bytes` are sent (a client that stalls), before the first read.
    static func rawBytes(_ bytes: [UInt8], port: Int, timeout: TimeInterval = 5,
                         beforeReading: () -> Void = {}) throws -> [UInt8] {
        let connection = try RawConnection(port: port, timeout: timeout)
        _ = connection.send(bytes)
        beforeReading()
        return connection.readToEnd().bytes
    }

    private static func parse(_ data: Data) throws -> Response {
        var rest = data
        var response: Response?
        // `curl -i` prints every response head (e.g. a proxy's); keep the last.
        while let separator = rest.range(of: Data("\r\n\r\n".utf8)), rest.starts(with: Data("HTTP/".utf8)) {
            let headText = String(decoding: rest[rest.startIndex..<separator.lowerBound], as: UTF8.self)
            var lines = headText.components(separatedBy: "\r\n")
            let statusLine = lines.removeFirst().split(separator: " ")
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            rest = rest[separator.upperBound...]
            response = Response(status: statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0, headers: headers, body: Data(rest))
        }
        guard let response else { throw POSIXError(.EBADMSG) }
        return response
    }
}
