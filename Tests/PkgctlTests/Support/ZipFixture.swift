import CZip
import Foundation

/// Writes test archives with libzip itself.
enum ZipFixture {
    struct Entry {
        var name: String
        var data: [UInt8]
        /// Full Unix mode (type and permissions) for the external attributes.
        var unixMode: UInt32?
        var method: Int32 = ZIP_CM_DEFLATE

        static func file(_ name: String, _ data: [UInt8], unixMode: UInt32? = nil) -> Entry {
            Entry(name: name, data: data, unixMode: unixMode)
        }

        static func file(_ name: String, _ text: String) -> Entry {
            Entry(name: name, data: Array(text.utf8), unixMode: nil)
        }

        static func directory(_ name: String) -> Entry {
            Entry(name: name, data: [], unixMode: nil)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func write(_ entries: [Entry], to path: String) throws {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            throw Failure(description: "zip_open \(path): \(code)")
        }
        func fail(_ what: String) -> Failure {
            let failure = Failure(description: "\(what): \(String(cString: zip_strerror(archive)))")
            zip_discard(archive)
            return failure
        }
        for entry in entries {
            let index: Int64
            if entry.name.hasSuffix("/") && entry.data.isEmpty {
                index = zip_dir_add(archive, entry.name, zip_flags_t(ZIP_FL_ENC_UTF_8))
            } else {
                let copy = malloc(max(entry.data.count, 1))!
                entry.data.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                guard let source = zip_source_buffer(archive, copy, zip_uint64_t(entry.data.count), 1) else {
                    free(copy)
                    throw fail("zip_source_buffer")
                }
                index = zip_file_add(archive, entry.name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
                if index < 0 {
                    zip_source_free(source)
                    throw fail("zip_file_add \(entry.name)")
                }
                guard zip_set_file_compression(archive, zip_uint64_t(index), entry.method, 0) == 0 else {
                    throw fail("zip_set_file_compression")
                }
            }
            if index < 0 { throw fail("zip_dir_add \(entry.name)") }
            if let mode = entry.unixMode {
                guard zip_file_set_external_attributes(archive, zip_uint64_t(index), 0,
                                                       UInt8(ZIP_OPSYS_UNIX), mode << 16) == 0 else {
                    throw fail("zip_file_set_external_attributes")
                }
            }
        }
        guard zip_close(archive) == 0 else { throw fail("zip_close") }
    }
}
