import CWebKitGTK
import Glibc

/// The write end of the pipe whose read end WebKit consumes as a response body
/// (a `GUnixInputStream`): a body streams to the page without ever being held
/// whole. Main thread only.
///
/// Bytes the pipe cannot take yet wait in `pending` while a GLib watch waits for
/// room; each byte that enters the pipe is reported through `onConsumed`, so
/// the resolver's window bounds `pending`. When WebKit drops the stream (the
/// page went away) the pipe reports an error: `onReaderGone` runs once.
final class PipeBodyWriter: @unchecked Sendable {
    /// The read end as a stream, until ``takeStream()`` hands it over.
    private var stream: UnsafeMutablePointer<GInputStream>?
    var onConsumed: (Int) -> Void = { _ in }
    var onReaderGone: () -> Void = {}

    /// `F_SETPIPE_SZ` (Linux), which Swift's Glibc module does not show.
    private static let setPipeSize: Int32 = 1031

    private let held: HeldBodyBytes
    private var descriptor: Int32
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var finishing = false
    private var writableWatch: guint = 0
    private var errorWatch: guint = 0

    /// `held` counts the bytes this writer queues.
    init(held: HeldBodyBytes) throws(PipeError) {
        self.held = held
        var ends: [Int32] = [-1, -1]
        guard g_unix_open_pipe(&ends, FD_CLOEXEC, nil) != 0 else { throw PipeError(errno: errno) }  // pipe2(O_CLOEXEC)
        descriptor = ends[1]
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, Self.setPipeSize, 256 * 1024)  // fewer wake-ups; best effort
        stream = UnsafeMutableRawPointer(g_unix_input_stream_new(ends[0], gboolean(1)))!
            .assumingMemoryBound(to: GInputStream.self)
        errorWatch = watch(GIOCondition(G_IO_ERR.rawValue | G_IO_HUP.rawValue))
    }

    /// The read end's stream, with its reference: the caller unrefs it once WebKit holds
    /// it, and the read end closes when WebKit drops it.
    func takeStream() -> UnsafeMutablePointer<GInputStream>? {
        defer { stream = nil }
        return stream
    }

    /// Queues `data` for the page.
    func write(_ data: UnsafeRawBufferPointer) {
        guard descriptor >= 0 else { return }
        let queuedBefore = queued
        if pending.count == pendingStart {
            let written = send(data)
            guard written >= 0 else { return }
            if written < data.count { pending.append(contentsOf: data[written...]) }
        } else {
            pending.append(contentsOf: data)
        }
        held.change(by: queued - queuedBefore)
        if pending.count > pendingStart, writableWatch == 0 { writableWatch = watch(G_IO_OUT) }
    }

    /// Ends the body once everything queued is in the pipe (EOF for the page).
    func finish() {
        finishing = true
        if pending.count == pendingStart { close() }
    }

    /// Ends the body now. A pipe cannot carry an error: the page sees the body end
    /// early (a truncated file), as after a cut HTTP connection without a length check.
    func abort() { close() }

    private func send(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN {
                break
            } else {
                readerGone()
                return -1
            }
        }
        if offset > 0 { onConsumed(offset) }
        return offset
    }

    /// Bytes queued and not yet in the pipe.
    private var queued: Int { pending.count - pendingStart }

    private func writable() -> Bool {
        let written = pending.withUnsafeBytes { send(UnsafeRawBufferPointer(rebasing: $0[pendingStart...])) }
        guard written >= 0 else { return false }
        pendingStart += written
        held.change(by: -written)
        if pendingStart == pending.count {
            pending.removeAll(keepingCapacity: false)
            pendingStart = 0
            writableWatch = 0
            if finishing { close() }
            return false
        }
        if pendingStart > 1 << 20 {  // drop what was sent, now and then
            pending.removeFirst(pendingStart)
            pendingStart = 0
        }
        return true
    }

    private func readerGone() {
        guard descriptor >= 0 else { return }
        close()
        onReaderGone()
    }

    private func close() {
        guard descriptor >= 0 else { return }
        if writableWatch != 0 { g_source_remove(writableWatch) }
        if errorWatch != 0 { g_source_remove(errorWatch) }
        writableWatch = 0
        errorWatch = 0
        Glibc.close(descriptor)
        descriptor = -1
        held.change(by: -queued)
        pending = []
        pendingStart = 0
    }

    /// A GLib watch on the write end; the source holds a reference to this writer.
    private func watch(_ condition: GIOCondition) -> guint {
        let context = Unmanaged.passRetained(self).toOpaque()
        return g_unix_fd_add_full(G_PRIORITY_DEFAULT, descriptor, condition, { _, condition, context in
            let writer = Unmanaged<PipeBodyWriter>.fromOpaque(context!).takeUnretainedValue()
            if condition.rawValue & (G_IO_ERR.rawValue | G_IO_HUP.rawValue) != 0 {
                writer.readerGone()
                return gboolean(0)
            }
            return writer.writable() ? gboolean(1) : gboolean(0)
        }, context, { context in
            Unmanaged<PipeBodyWriter>.fromOpaque(context!).release()
        })
    }
}

/// A pipe for a response body could not be made.
struct PipeError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "pipe: " + String(cString: strerror(errno)) }
}
