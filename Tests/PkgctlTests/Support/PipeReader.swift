import Foundation
@testable import PkgCore
@testable import PkgPublishing

/// Reads a child's pipe to its end on a thread of its own, so a child that fills the pipe's
/// 64 KiB never blocks on it; ``text()`` waits for the end (the child exited or closed it).
final class PipeReader: Sendable {
    private let bytes = PosixMutex(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let bytes = bytes, done = done
        Thread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            bytes.withLock { $0 = data }
            done.signal()
        }.start()
    }

    /// Everything the pipe carried, once its writer has closed it.
    func text() -> String {
        done.wait()
        done.signal()
        return String(decoding: bytes.withLock { $0 }, as: UTF8.self)
    }
}
