import FoundationEssentials

/// One PEM block (RFC 7468): DER bytes in base64 between `-----BEGIN LABEL-----` and
/// `-----END LABEL-----`, the text OpenSSL reads and writes key files in. Reading is
/// RFC 7468's lax form (any line length, CRLF, spaces at line ends, text before and after
/// the block), but a file holds one block.
package struct PEMBlock: Equatable {
    package var label: String
    package var der: [UInt8]

    /// A block of `der` under `label`.
    package init(label: String, der: [UInt8]) {
        self.label = label
        self.der = der
    }

    /// The one block `text` holds, ignoring a byte order mark and any text before and after
    /// it (what `openssl pkey -text` adds after, PKCS#12's bag attributes before); nil when the
    /// text holds no block or more than one, the labels differ, or what is between them is
    /// empty or not base64.
    package init?(parsing text: String) {
        let unmarked = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        let lines = unmarked.split(whereSeparator: \.isNewline).map { $0.trimmingWhitespace() }
        func isBegin(_ line: String) -> Bool { Self.label(of: line, marker: "BEGIN") != nil }
        guard let begin = lines.firstIndex(where: isBegin), let label = Self.label(of: lines[begin], marker: "BEGIN"),
              let end = lines[begin...].firstIndex(where: { $0.hasPrefix("-----END ") }),
              Self.label(of: lines[end], marker: "END") == label,
              !lines[(end + 1)...].contains(where: isBegin) else { return nil }
        let body = lines[(begin + 1) ..< end].joined()
        guard body.utf8.allSatisfy(Self.isBase64), let der = Data(base64Encoded: body), !der.isEmpty else { return nil }
        self.init(label: label, der: Array(der))
    }

    /// The block as OpenSSL writes it: 64 characters a line, no newline after the END line.
    package var text: String {
        let encoded = Data(der).base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var rest = Substring(encoded)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n")
    }

    /// The label of an encapsulation line `-----MARKER LABEL-----`; nil for any other line.
    private static func label(of line: String, marker: String) -> String? {
        let head = "-----\(marker) ", tail = "-----"
        guard line.hasPrefix(head), line.hasSuffix(tail), line.utf8.count > head.utf8.count + tail.utf8.count else { return nil }
        let label = String(line.dropFirst(head.count).dropLast(tail.count))
        guard !label.contains("-----"), label.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return label
    }

    private static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): true
        default: false
        }
    }
}
