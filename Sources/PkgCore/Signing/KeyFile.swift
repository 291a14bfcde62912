import Glibc

/// Reading the PEM files keys live in.
enum KeyFile {
    /// Key files are a few hundred bytes; anything much larger is not one.
    static let maxBytes = 16 * 1024

    /// The 32 raw key bytes of an Ed25519 key file whose PEM label is `label`
    /// and whose DER is `derPrefix` followed by the key (RFC 8410's encodings
    /// are fixed, so nothing else is accepted). `otherLabel` is the label of
    /// the opposite kind of key, refused with `otherKindMessage`.
    static func readRawKey(_ path: String, label: String, derPrefix: [UInt8], kind: String,
                           otherLabel: String, otherKindMessage: String) throws -> [UInt8] {
        let block = try readPEM(path)
        if block.label == otherLabel { throw PkgError(.invalidKey, "\(path) \(otherKindMessage)") }
        guard block.label == label, block.der.count == derPrefix.count + 32, block.der.starts(with: derPrefix) else {
            throw PkgError(.invalidKey, "\(path) is not an Ed25519 \(kind)")
        }
        return Array(block.der.dropFirst(derPrefix.count))
    }

    /// The PEM block in `path`, or a one-line error naming the file.
    private static func readPEM(_ path: String) throws -> PEMBlock {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw PkgError(.invalidKey, "key file \(path) does not exist") }
            throw fileSystemError("stat", path)
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size <= maxBytes, let bytes = try FileSystem.read(path),
              let text = String(validating: bytes, as: UTF8.self), let block = PEMBlock(parsing: text) else {
            throw PkgError(.invalidKey, "\(path) is not a PEM key file")
        }
        return block
    }

}
