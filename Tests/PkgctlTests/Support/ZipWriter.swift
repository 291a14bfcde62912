import Foundation

/// A tiny hand-rolled zip writer (stored entries only) for the malformed
/// archives libzip refuses to write: duplicate names, wrong CRCs,
/// encryption flags, sizes that lie, unknown compression methods.
struct ZipWriter {
    struct Entry {
        var name: String
        var data: [UInt8]
        /// CRC-32 to record instead of the real one.
        var crc: UInt32?
        /// Uncompressed size to record instead of `data.count`.
        var declaredSize: UInt32?
        /// General purpose bit flags (bit 0: encrypted).
        var flags: UInt16 = 0
        /// Compression method to record; the data is always written as is.
        var method: UInt16 = 0
        /// Unix mode in the high 16 bits, as Info-ZIP writes it.
        var externalAttributes: UInt32 = 0o100644 << 16

        init(_ name: String, _ text: String = "", crc: UInt32? = nil, declaredSize: UInt32? = nil,
             flags: UInt16 = 0, method: UInt16 = 0) {
            self.name = name
            self.data = Array(text.utf8)
            self.crc = crc
            self.declaredSize = declaredSize
            self.flags = flags
            self.method = method
            if name.hasSuffix("/") { externalAttributes = 0o040755 << 16 }
        }
    }

    var entries: [Entry]

    init(_ entries: [Entry]) {
        self.entries = entries
    }

    /// The whole archive: local headers with data, central directory, end record.
    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let offset = UInt32(out.count)
            let name = Array(entry.name.utf8)
            let crc = entry.crc ?? ZipWriter.crc32(entry.data)
            let size = entry.declaredSize ?? UInt32(entry.data.count)
            let compressed = UInt32(entry.data.count)

            out.le32(0x0403_4b50)
            out.le16(20)
            out.le16(entry.flags)
            out.le16(entry.method)
            out.le16(0)  // time 00:00
            out.le16(0x21)  // date 1980-01-01
            out.le32(crc)
            out.le32(compressed)
            out.le32(size)
            out.le16(UInt16(name.count))
            out.le16(0)
            out += name
            out += entry.data

            central.le32(0x0201_4b50)
            central.le16(0x031e)  // made by Unix, spec 3.0
            central.le16(20)
            central.le16(entry.flags)
            central.le16(entry.method)
            central.le16(0)
            central.le16(0x21)
            central.le32(crc)
            central.le32(compressed)
            central.le32(size)
            central.le16(UInt16(name.count))
            central.le16(0)  // extra
            central.le16(0)  // comment
            central.le16(0)  // disk
            central.le16(0)  // internal attributes
            central.le32(entry.externalAttributes)
            central.le32(offset)
            central += name
        }
        let centralOffset = UInt32(out.count)
        out += central
        out.le32(0x0605_4b50)
        out.le16(0)
        out.le16(0)
        out.le16(UInt16(entries.count))
        out.le16(UInt16(entries.count))
        out.le32(UInt32(central.count))
        out.le32(centralOffset)
        out.le16(0)
        return out
    }

    func write(to path: String) throws {
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
    }

    /// CRC-32 (IEEE 802.3, reflected), as zip uses.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1
            }
        }
        return ~crc
    }
}

extension [UInt8] {
    fileprivate mutating func le16(_ value: UInt16) {
        append(UInt8(value & 0xff))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func le32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xff)) }
    }
}
