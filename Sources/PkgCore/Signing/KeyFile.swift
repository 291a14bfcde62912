import SwiftASN1
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
        let document = try readPEM(path)
        if document.discriminator == otherLabel { throw PkgError(.invalidKey, "\(path) \(otherKindMessage)") }
        guard document.discriminator == label, document.derBytes.count == derPrefix.count + 32,
              document.derBytes.starts(with: derPrefix) else {
            throw PkgError(.invalidKey, "\(path) is not an Ed25519 \(kind)")
        }
        return Array(document.derBytes.dropFirst(derPrefix.count))
    }

    /// The PEM document in `path`, or a one-line error naming the file.
    private static func readPEM(_ path: String) throws -> PEMDocument {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { throw PkgError(.invalidKey, "key file \(path) does not exist") }
            throw fileSystemError("stat", path)
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size <= maxBytes, let bytes = try FileSystem.read(path),
              let text = String(validating: bytes, as: UTF8.self) else {
            throw PkgError(.invalidKey, "\(path) is not a PEM key file")
        }
        do {
            return try PEMDocument(pemString: text.trimmingWhitespace())
        } catch {
            throw PkgError(.invalidKey, "\(path) is not a PEM key file")
        }
    }

}
