import PkgCrypto
import Glibc

/// Answers the origin chose by request headers (`Vary: Accept`, as image CDNs send), each
/// stored apart and served only to a request with the same selecting values:
///
/// ```
/// [NAME@VERSION/].vary/K/fields       the header names the answers vary on, one a line
/// [NAME@VERSION/].vary/K/V            one representation's body
/// [NAME@VERSION/].vary/K/V.type       its Content-Type
/// ```
///
/// `K` is the SHA-256 of the entry's key and `V` that of the request's selecting values
/// (``VaryHeader/selectingValues(of:in:)``), 32 hex digits each. A routed entry's
/// representations live under its version's directory, so they go stale and are removed
/// with it. No host starts with `.`, so `.vary` meets no host's directory.
extension Overlay {
    /// Most representations stored for one key (an origin varying on `User-Agent` would
    /// otherwise store one per client).
    static let representationLimit = 16

    /// The directory of `key`'s representations, relative to the overlay root.
    static func representationDirectory(for key: String) -> String {
        let digest = String(SHA256.hash(data: Array(key.utf8)).hexString.prefix(32))
        // A routed key starts with NAME@VERSION/ (no host has an "@").
        if let slash = key.utf8.firstIndex(of: UInt8(ascii: "/")), key[..<slash].utf8.contains(UInt8(ascii: "@")) {
            return String(key[..<slash]) + "/.vary/" + digest
        }
        return ".vary/" + digest
    }

    /// The representation of `key` stored for a request with `headers`, with its
    /// `Content-Type` and the `Vary` value to answer with; nil when none is stored for them.
    func openRepresentation(key: String, headers: [(name: String, value: String)])
        -> (file: LocalFile, contentType: String, vary: String)? {
        // A key with no representations is remembered by the key, not its directory: a miss
        // then costs no SHA-256. (No relative path holds a NUL.)
        var directory = ""
        let fieldsFile = open(rememberedAs: key + "\u{0}vary") {
            directory = Self.representationDirectory(for: key)
            return directory + "/fields"
        }
        guard let fieldsFile, let fields = Self.text(of: fieldsFile) else { return nil }
        let names = fields.split(separator: "\n").map(String.init)
        guard !names.isEmpty, names.count <= VaryHeader.maximumFields else { return nil }
        let name = directory + "/" + Self.valuesDigest(names, headers)
        guard let typeFile = LocalFile.open(under: directoryDescriptor, directory: root, relativePath: name + ".type"),
              let contentType = Self.text(of: typeFile),
              let file = LocalFile.open(under: directoryDescriptor, directory: root, relativePath: name) else {
            return nil
        }
        return (file, contentType, names.joined(separator: ", "))
    }

    /// Starts writing the representation of `key` that the origin selected by `fields` of the
    /// request `headers`, of type `contentType`. Nil when the type is unusable. The limit of
    /// ``representationLimit``, the type and the field list are checked and written when the
    /// body commits (on the commit queue; the type just before the body is renamed in), so a
    /// fetch that fails leaves nothing and the transfer's thread does no directory work.
    func makeRepresentationWriter(key: String, fields: [String], headers: [(name: String, value: String)],
                                  contentType: String?) -> OverlayWriter? {
        guard let contentType, (1...200).contains(contentType.utf8.count),
              contentType.utf8.allSatisfy({ (0x20...0x7e).contains($0) }) else { return nil }
        let relative = Self.representationDirectory(for: key)
        let directory = root + "/" + relative
        let name = Self.valuesDigest(fields, headers)
        let list = Array((fields.joined(separator: "\n") + "\n").utf8)
        guard let writer = makeWriter(key: relative + "/" + name) else { return nil }
        writer.beforePublish = {
            let stored = (try? FileSystem.contents(of: directory))?.filter { !$0.hasSuffix(".type") && $0 != "fields" } ?? []
            guard stored.count < Self.representationLimit || stored.contains(name) else { return false }
            do {
                try FileSystem.writeAtomically(Array(contentType.utf8), to: directory + "/" + name + ".type")
                if (try? FileSystem.read(directory + "/fields")) != list {
                    try FileSystem.writeAtomically(list, to: directory + "/fields")
                }
                return true
            } catch {
                return false
            }
        }
        return writer
    }

    /// The 32-hex-digit name of the representation selected by `fields` of `headers`.
    private static func valuesDigest(_ fields: [String], _ headers: [(name: String, value: String)]) -> String {
        let values = VaryHeader.selectingValues(of: fields, in: headers)
        return String(SHA256.hash(data: Array(values.utf8)).hexString.prefix(32))
    }

    /// The whole text of a small stored file (a field list, a type); nil past 1 KiB or unreadable.
    private static func text(of file: LocalFile) -> String? {
        guard file.size > 0, file.size <= 1024 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(file.size))
        let count = bytes.withUnsafeMutableBytes { file.read(into: $0, at: 0) }
        guard count == bytes.count else { return nil }
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
