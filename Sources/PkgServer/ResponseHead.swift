import NIOCore
import NIOHTTP1
import PkgCore

/// Writes HTTP/1.1 response heads straight into a `ByteBuffer`: the status line
/// (pre-encoded for the usual statuses), the answer's fields, then the server's
/// own `Date`, `X-Pkg-Source`, framing and `Connection` fields. The server sends
/// a head and a small body in one write, with no encoder or validator handlers
/// between it and the socket.
///
/// The head is measured first and then copied into the buffer in one access:
/// a `ByteBuffer` write per piece costs more than the bytes it copies.
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
        let statusLine = statusLine(status)
        let date = ServerDate.now
        var length = statusLine.count + tailLength(date: date, source: source, framing: framing, connection: connection)
        for field in fields where isKept(field, untrusted: untrusted) {
            length += field.name.utf8.count + 2 + field.value.utf8.count + 2
        }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { pointer in
            var out = Cursor(pointer.baseAddress!)
            statusLine.withUnsafeBytes { out.append($0) }
            appendFields(fields, untrusted: untrusted, to: &out)
            appendTail(date: date, source: source, framing: framing, connection: connection, to: &out)
            return out.offset
        }
    }

    /// The status line and fields of a head as ``write(status:fields:untrusted:source:framing:connection:into:)``
    /// writes them, for ``write(start:source:framing:connection:into:)`` to reuse.
    static func encodeStart(status: Int, fields: [(name: String, value: String)], untrusted: Bool) -> [UInt8] {
        let statusLine = statusLine(status)
        var length = statusLine.count
        for field in fields where isKept(field, untrusted: untrusted) {
            length += field.name.utf8.count + 2 + field.value.utf8.count + 2
        }
        return [UInt8](unsafeUninitializedCapacity: length) { pointer, count in
            var out = Cursor(UnsafeMutableRawPointer(pointer.baseAddress!))
            statusLine.withUnsafeBytes { out.append($0) }
            appendFields(fields, untrusted: untrusted, to: &out)
            count = out.offset
        }
    }

    /// Appends a head whose status line and fields were encoded before (``encodeStart(status:fields:untrusted:)``).
    static func write(start: [UInt8], source: String, framing: Framing, connection: StaticString?,
                      into buffer: inout ByteBuffer) {
        let date = ServerDate.now
        let length = start.count + tailLength(date: date, source: source, framing: framing, connection: connection)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { pointer in
            var out = Cursor(pointer.baseAddress!)
            start.withUnsafeBytes { out.append($0) }
            appendTail(date: date, source: source, framing: framing, connection: connection, to: &out)
            return out.offset
        }
    }

    private static let chunkedField: StaticString = "Transfer-Encoding: chunked\r\n"

    private static func appendFields(_ fields: [(name: String, value: String)], untrusted: Bool, to out: inout Cursor) {
        for field in fields where isKept(field, untrusted: untrusted) {
            out.append(text: field.name)
            out.append(": ")
            out.append(text: field.value)
            out.append("\r\n")
        }
    }

    /// The length of what ``appendTail(date:source:framing:connection:to:)`` writes.
    private static func tailLength(date: String, source: String, framing: Framing, connection: StaticString?) -> Int {
        var length = 6 + date.utf8.count + 16 + source.utf8.count + 2 + 2
        if framing == .chunked { length += chunkedField.utf8CodeUnitCount }
        if let connection { length += 12 + connection.utf8CodeUnitCount + 2 }
        return length
    }

    /// The server's own fields and the blank line that ends the head.
    private static func appendTail(date: String, source: String, framing: Framing, connection: StaticString?,
                                   to out: inout Cursor) {
        out.append("Date: ")
        out.append(text: date)
        out.append("\r\nX-Pkg-Source: ")
        out.append(text: source)
        out.append("\r\n")
        if framing == .chunked { out.append(chunkedField) }
        if let connection {
            out.append("Connection: ")
            out.append(connection)
            out.append("\r\n")
        }
        out.append("\r\n")
    }

    /// Copies bytes to consecutive addresses; the head was measured before.
    private struct Cursor {
        let base: UnsafeMutableRawPointer
        var offset = 0

        init(_ base: UnsafeMutableRawPointer) { self.base = base }

        mutating func append(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress else { return }
            (base + offset).copyMemory(from: source, byteCount: bytes.count)
            offset += bytes.count
        }

        mutating func append(_ text: StaticString) {
            append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        mutating func append(text: String) {
            let copied: Void? = text.utf8.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
            if copied == nil {
                for byte in text.utf8 {
                    base.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self)
                    offset += 1
                }
            }
        }
    }

    /// Status lines of 100...999, made on first use.
    private static let statusLines: [[UInt8]] = (0..<900).map { encodeStatusLine(100 + $0) }

    private static func statusLine(_ status: Int) -> [UInt8] {
        statusLines[(100...999).contains(status) ? status - 100 : 402]
    }

    private static func encodeStatusLine(_ code: Int) -> [UInt8] {
        Array("HTTP/1.1 \(code) \(HTTPResponseStatus(statusCode: code).reasonPhrase)\r\n".utf8)
    }

    private static func isKept(_ field: (name: String, value: String), untrusted: Bool) -> Bool {
        !isReplaced(field.name) && (!untrusted || isSafe(field))
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
