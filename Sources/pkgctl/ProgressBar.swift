import FoundationEssentials
import Glibc
import PkgCore
import PkgPublishing

/// A one-line download bar on stderr, redrawn in place; only used on a terminal.
final class ProgressBar: Sendable {
    /// When the bar was last drawn; held while drawing, so lines never interleave.
    private let lastDraw = PosixMutex(Date.distantPast)

    func handle(_ event: UpdateEvent) {
        lastDraw.withLock { lastDraw in handle(event, lastDraw: &lastDraw) }
    }

    private func handle(_ event: UpdateEvent, lastDraw: inout Date) {
        switch event {
        case .downloading(let name, let version, let received, let total):
            guard received == total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            let fraction = total > 0 ? Double(received) / Double(total) : 0
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            draw("\(name) \(version) [\(bar)] \(Int(fraction * 100))%")
        case .extracting(let name, let version):
            draw("\(name) \(version) extracting…")
        case .finished, .fellBack, .prefetched:
            draw("")
        }
    }

    /// Draws how far a prefetch has come (at most every 0.1 s, and always its last URL).
    func handle(_ progress: PrefetchProgress) {
        lastDraw.withLock { lastDraw in
            guard progress.done == progress.total || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            let width = 30
            let filled = progress.total > 0 ? progress.done * width / progress.total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            draw("prefetch [\(bar)] \(progress.done)/\(progress.total)  \(progress.bytes) bytes")
        }
    }

    /// Draws how far a publish has come (at most every 0.1 s, and always its last file).
    func handle(_ progress: PublishProgress) {
        lastDraw.withLock { lastDraw in
            guard progress.files == progress.totalFiles || Date().timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = Date()
            let width = 30
            let filled = progress.totalBytes > 0 ? Int(progress.bytes * UInt64(width) / progress.totalBytes) : width
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            draw("publish [\(bar)] \(progress.files)/\(progress.totalFiles) files  \(progress.bytes) bytes")
        }
    }

    /// Clears the bar's line.
    func clear() {
        lastDraw.withLock { _ in draw("") }
    }

    private func draw(_ text: String) {
        Output.write(Array("\r\u{1B}[2K\(text)".utf8), to: STDERR_FILENO)
    }
}
