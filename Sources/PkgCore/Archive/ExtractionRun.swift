import Glibc
import CZip
import PkgCrypto
import Synchronization

/// One extraction shared by its workers: the next file to take, the first
/// error, and the index being built.
final class ExtractionRun: Sendable {
    /// Bytes each worker reads and writes at a time.
    static let bufferSize = 256 * 1024

    private let extractor: BundleExtractor
    private let files: [BundleContents.File]
    private let rootFD: Int32
    private let directory: String

    private let nextFile = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let error = PosixMutex<PkgError?>(nil)
    private let entries = PosixMutex<[String: FileIndex.Entry]>([:])

    init(extractor: BundleExtractor, files: [BundleContents.File], rootFD: Int32, directory: String) {
        self.extractor = extractor
        self.files = files
        self.rootFD = rootFD
        self.directory = directory
    }

    /// The first error any worker hit, if one did.
    var firstError: PkgError? { error.withLock { $0 } }

    /// The files extracted so far, by relative path.
    var index: [String: FileIndex.Entry] { entries.withLock { $0 } }

    /// One worker: opens its own archive handle and extracts files until
    /// none are left or any worker has failed.
    func work() {
        let archive: ZipArchive
        do {
            archive = try ZipArchive(path: extractor.archivePath, label: extractor.label)
        } catch {
            fail(error)
            return
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        defer { buffer.deallocate() }

        var done: [(String, FileIndex.Entry)] = []
        while !stopped.load(ordering: .relaxed) {
            let next = nextFile.wrappingAdd(1, ordering: .relaxed).oldValue
            guard next < files.count else { break }
            do {
                let file = files[next]
                done.append((file.path, try extract(file, from: archive, buffer: buffer)))
            } catch {
                fail(error)
                break
            }
        }
        entries.withLock { index in
            for (path, entry) in done { index[path] = entry }
        }
    }

    /// Records `error` if it is the first, and tells every worker to stop.
    private func fail(_ failure: any Error) {
        if failure is Stopped { return }  // another worker's failure is the one to report
        let failure = failure as? PkgError ?? PkgError(.fileSystem, "\(extractor.label): extraction failed: \(failure)")
        error.withLock { first in
            if first == nil { first = failure }
        }
        stopped.store(true, ordering: .relaxed)
    }

    /// Another worker failed while this one was mid-file.
    private struct Stopped: Error {}

    /// Streams one entry into a new file, hashing it on the way.
    private func extract(_ file: BundleContents.File, from archive: ZipArchive,
                         buffer: UnsafeMutableRawPointer) throws -> FileIndex.Entry {
        let reader = try ZipEntryReader(archive: archive, index: file.index, name: file.path)
        let fd = openat(rootFD, file.path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw extractor.labelled(fileSystemError("create", directory + "/" + file.path)) }
        var open = true
        defer { if open { close(fd) } }

        var hasher = SHA256()
        var written: UInt64 = 0
        while true {
            let count = reader.read(into: buffer, count: Self.bufferSize)
            if count == 0 { break }
            if count < 0 { throw readError(reader.errorCode, file) }
            written += UInt64(count)
            if written > file.size {
                throw extractor.entryError(.corruptArchive, file.path,
                                           "holds more than its declared size of \(file.size) bytes")
            }
            let bytes = UnsafeRawBufferPointer(start: buffer, count: count)
            hasher.update(bufferPointer: bytes)
            try write(bytes, to: fd, file)
            if stopped.load(ordering: .relaxed) { throw Stopped() }
        }
        if written != file.size {
            throw extractor.entryError(.corruptArchive, file.path,
                                       "holds \(written) bytes, not its declared size of \(file.size)")
        }
        open = false
        if close(fd) != 0 { throw extractor.labelled(fileSystemError("close", directory + "/" + file.path)) }
        return FileIndex.Entry(size: written, sha256: hasher.finalize().hexString)
    }

    private func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32, _ file: BundleContents.File) throws {
        var offset = 0
        while offset < bytes.count {
            let result = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                throw extractor.labelled(fileSystemError("write", directory + "/" + file.path))
            }
            offset += result
        }
    }

    private func readError(_ code: Int32, _ file: BundleContents.File) -> PkgError {
        switch code {
        case ZIP_ER_CRC:
            return extractor.entryError(.corruptArchive, file.path, "CRC mismatch")
        case ZIP_ER_INCONS:
            return extractor.entryError(.corruptArchive, file.path, "data does not match its declared size")
        default:
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            return extractor.entryError(.corruptArchive, file.path,
                                        "cannot be read: \(String(cString: zip_error_strerror(&error)))")
        }
    }
}
