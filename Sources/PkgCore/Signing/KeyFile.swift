import SwiftASN1

/// Reading the PEM files keys live in.
enum KeyFile {
    /// Key files are a few hundred bytes; anything much larger is not one.
    static let maxBytes = 16 * 1024

    /// The PEM document in `path`, or a one-line error naming the file.
    static func readPEM(_ path: String) throws -> PEMDocument {
        guard let bytes = try FileSystem.read(path) else {
            throw PkgError(.invalidKey, "key file \(path) does not exist")
        }
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else {
            throw PkgError(.invalidKey, "\(path) is not a PEM key file")
        }
        do {
            return try PEMDocument(pemString: text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            throw PkgError(.invalidKey, "\(path) is not a PEM key file")
        }
    }

}
