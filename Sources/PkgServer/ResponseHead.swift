import NIOCore
import NIOHTTP1
import PkgCore

/// Writes HTTP/1.1 response heads straight into a `ByteBuffer`: the status line
/// (pre-encoded for the usual statuses), the answer's fields, then the server's
/// own `Date`, `X-Pkg-Source`, framing and `Connection` fields. The server sends
/// a head and a small body in one write, with no encoder or validator handlers
/// between it and the socket.
enum ResponseHead {
    /// How the body that follows is delimited, beyond the answer's own `Content-Length`.
    enum Framing {
        /// `Content-Length` (in the fields), or no body at all.
        case length
        /// `Transfer-Encoding: chunked`: an origin answer of unknown length to an HTTP/1.1 client.
        case chunked
    }

    /// Appends the head to `buffer`. `Date` and `X-Pkg-Source` in `fields` are replaced by
    /// the server's; with `untrusted` (an origin's fields) a field whose name or value could
    /// break the framing (CR, LF, NUL, a colon or space in the name) is left out.
    static func write(status: Int, fields: [(name: String, value: String)], untrusted: Bool, source: String,
                      framing: Framing, connection: StaticString?, into buffer: inout ByteBuffer) {
        buffer.writeBytes(statusLine(status))
        for field in fields {
            if isReplaced(field.name) { continue }
            if untrusted, !isSafe(field) { continue }
            buffer.writeString(field.name)
            buffer.writeStaticString(": ")
            buffer.writeString(field.value)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("Date: ")
        buffer.writeString(ServerDate.now)
        buffer.writeStaticString("\r\nX-Pkg-Source: ")
        buffer.writeString(source)
        buffer.writeStaticString("\r\n")
        if framing == .chunked { buffer.writeStaticString("Transfer-Encoding: chunked\r\n") }
        if let connection {
            buffer.writeStaticString("Connection: ")
            buffer.writeStaticString(connection)
            buffer.writeStaticString("\r\n")
        }
        buffer.writeStaticString("\r\n")
    }

    private static let usualStatusLines: [Int: [UInt8]] = {
        var lines: [Int: [UInt8]] = [:]
        for status in [200, 204, 206, 301, 302, 304, 400, 401, 403, 404, 405, 413, 416, 431, 500, 502, 503, 504] {
            lines[status] = encodeStatusLine(status)
        }
        return lines
    }()

    private static func statusLine(_ status: Int) -> [UInt8] {
        usualStatusLines[status] ?? encodeStatusLine(status)
    }

    private static func encodeStatusLine(_ status: Int) -> [UInt8] {
        let code = (100...999).contains(status) ? status : 502
        return Array("HTTP/1.1 \(code) \(HTTPResponseStatus(statusCode: code).reasonPhrase)\r\n".utf8)
    }

    /// `Date` and `X-Pkg-Source`, compared without allocating.
    private static func isReplaced(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: return asciiCaseInsensitiveEqual(name, "date")
        case 12: return asciiCaseInsensitiveEqual(name, "x-pkg-source")
        default: return false
        }
    }

    private static func isSafe(_ field: (name: String, value: String)) -> Bool {
        guard !field.name.isEmpty else { return false }
        for byte in field.name.utf8 where byte <= 0x20 || byte == UInt8(ascii: ":") || byte == 0x7f { return false }
        for byte in field.value.utf8 where byte == 0x0d || byte == 0x0a || byte == 0 { return false }
        return true
    }
}
