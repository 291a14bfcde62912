import Dispatch

/// Local answers delivered to a task in chunks, within its flow-control window.
extension Resolver {
    /// Delivers `answer`'s head, then its bytes read on ``readQueue``.
    func stream(_ answer: LocalAnswer, to entry: TaskEntry) {
        guard entry.deliver(answer.response) else { return }
        guard let file = answer.file else {
            entry.finish()
            return
        }
        let chunk = max(4096, configuration.chunkSize)
        readQueue.async {
            Self.pump(file, from: answer.range.lowerBound, to: answer.range.upperBound, chunk: chunk, entry: entry,
                      queue: self.readQueue)
        }
    }

    /// Reads and delivers one chunk, then queues the next: a stopped task stops the reads at once,
    /// and a full window parks them until the host has consumed half of it.
    private static func pump(_ file: LocalFile, from offset: Int64, to end: Int64, chunk: Int, entry: TaskEntry,
                             queue: DispatchQueue) {
        guard entry.isLive else { return }
        let resume: @Sendable () -> Void = {
            queue.async { pump(file, from: offset, to: end, chunk: chunk, entry: entry, queue: queue) }
        }
        guard entry.hasRoom(orCall: resume) else { return }
        let count = Int(min(Int64(chunk), end - offset))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let read = file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            if read <= 0 {
                entry.fail(read < 0 ? fileSystemError("read", file.path)
                                    : PkgError(.fileSystem, "read \(file.path): file shrank while being served"))
                return
            }
            done += read
        }
        guard entry.deliver(UnsafeRawBufferPointer(buffer)) else { return }
        let next = offset + Int64(count)
        if next >= end {
            entry.finish()
        } else {
            queue.async { pump(file, from: next, to: end, chunk: chunk, entry: entry, queue: queue) }
        }
    }
}
