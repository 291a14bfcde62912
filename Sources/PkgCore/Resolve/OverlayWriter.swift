import FoundationEssentials
import Glibc

/// One overlay entry being written: a temp file that becomes visible, by
/// rename(2), only when the answer is complete and length-checked.
final class OverlayWriter: @unchecked Sendable {
    private var descriptor: Int32
    let temporary: String
    let destination: String
    /// Told when the entry is published.
    private let overlay: Overlay
    private(set) var written: Int64 = 0
    private var failed = false
    /// Runs in ``commit(expectedLength:)`` once the body is whole and flushed, just before the
    /// rename (on the commit queue, not the transfer's thread); false abandons the entry.
    var beforePublish: (@Sendable () -> Bool)?

    init(descriptor: Int32, temporary: String, destination: String, overlay: Overlay) {
        self.descriptor = descriptor
        self.temporary = temporary
        self.destination = destination
        self.overlay = overlay
    }

    deinit { discard() }

    /// Appends a chunk; on a write error the entry is abandoned.
    func write(_ data: UnsafeRawBufferPointer) {
        guard !failed, descriptor >= 0 else { return }
        var offset = 0
        while offset < data.count {
            let count = Glibc.write(descriptor, data.baseAddress! + offset, data.count - offset)
            if count < 0 {
                if errno == EINTR { continue }
                failed = true
                return
            }
            offset += count
        }
        written += Int64(data.count)
    }

    /// Flushes and renames into place when `expectedLength` (if any) matches; else discards.
    /// Returns whether the entry was published.
    @discardableResult
    func commit(expectedLength: Int64?) -> Bool {
        guard !failed, descriptor >= 0, expectedLength.map({ $0 == written }) ?? true else {
            discard()
            return false
        }
        let ok = fdatasync(descriptor) == 0
        close(descriptor)
        descriptor = -1
        guard ok else { unlink(temporary); return false }
        let parent = PathName.parent(destination)
        do { try FileSystem.makeDirectories(parent) } catch { unlink(temporary); return false }
        if let beforePublish, !beforePublish() { unlink(temporary); return false }
        if rename(temporary, destination) != 0 { unlink(temporary); return false }
        overlay.published()
        return true
    }

    /// Drops the temp file.
    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporary)
    }
}
