import Glibc
import CZip

/// An entry opened for reading; closed in `deinit`.
final class ZipEntryReader {
    private let file: OpaquePointer

    /// Opens entry `index`; throws `.corruptArchive` naming `name` on failure.
    init(archive: ZipArchive, index: UInt64, name: String) throws {
        guard let file = zip_fopen_index(archive.handle, index, 0) else {
            throw PkgError(.corruptArchive,
                           "\(archive.label): entry '\(name.escapedForMessage)': cannot be read: \(archive.lastErrorDescription)")
        }
        self.file = file
    }

    deinit {
        zip_fclose(file)
    }

    /// Reads up to `count` bytes into `buffer`: the number read, 0 at the
    /// end of the entry, or -1 on failure (see ``errorCode``).
    func read(into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        Int(zip_fread(file, buffer, zip_uint64_t(count)))
    }

    /// libzip's error code after a failed read, e.g. `ZIP_ER_CRC`.
    var errorCode: Int32 {
        zip_error_code_zip(zip_file_get_error(file))
    }

    /// libzip's description of this entry's last error.
    var lastErrorDescription: String {
        String(cString: zip_error_strerror(zip_file_get_error(file)))
    }
}
